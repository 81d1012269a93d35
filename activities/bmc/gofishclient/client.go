package gofishclient

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// The gofish client is every client interface the activities use.
var (
	_ bmcclient.Client        = (*client)(nil)
	_ bmcclient.AccountClient = (*client)(nil)
	_ bmcclient.Prober        = (*client)(nil)
)

// client remembers what it discovered (URIs, action targets) so a poll or
// an action is a single request.
type client struct {
	cfg      gofish.ClientConfig
	creds    bmcclient.Credentials
	anon     *gofish.APIClient // unauthenticated: creates sessions
	api      *gofish.APIClient // authenticated: everything else
	sessions string            // where sessions are created; "": basic auth
	session  string            // this client's session; "" when none
	relogged bool              // a 401 already led to a new session
	// unbounded shares the transport, without the request timeout: for
	// media actions, bounded by their context (Client.InsertMedia).
	unbounded *http.Client

	sysURI      string
	resetTarget string
	resetTypes  []string
	// resetTypesRead: the look-up was made, found or not, for the
	// client's life.
	resetTypesRead bool
}

func (c *client) system(ctx context.Context) (*schemas.ComputerSystem, error) {
	var sys *schemas.ComputerSystem
	err := c.call(ctx, func(api *gofish.APIClient) error {
		if c.sysURI != "" {
			var err error
			sys, err = schemas.GetObject[schemas.ComputerSystem](api, c.sysURI)
			return err
		}
		systems, err := api.Service.Systems()
		if err != nil {
			return err
		}
		if len(systems) == 0 {
			return rejected("the BMC lists no ComputerSystem")
		}
		sys = systems[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.sysURI = sys.ODataID
	c.resetTarget = actionTarget(sys.RawData, "#ComputerSystem.Reset")
	return sys, nil
}

// bootModeOf reads Boot.BootSourceOverrideMode from a System's raw JSON:
// whether the property is there at all (gofish decodes absent and null
// alike), its value and its allowable values (gofish keeps none).
func bootModeOf(raw []byte) (shown bool, mode string, allowed []string) {
	var d struct {
		Boot map[string]json.RawMessage
	}
	if json.Unmarshal(raw, &d) != nil {
		return false, "", nil
	}
	v, shown := d.Boot["BootSourceOverrideMode"]
	_ = json.Unmarshal(v, &mode)                                                           // null leaves it ""
	_ = json.Unmarshal(d.Boot["BootSourceOverrideMode@Redfish.AllowableValues"], &allowed) // absent leaves it nil
	return shown, mode, allowed
}

// actionTarget reads an action's target from a resource's raw JSON (gofish
// keeps targets private).
func actionTarget(raw []byte, action string) string {
	var d struct {
		Actions map[string]struct {
			Target string `json:"target"`
		}
	}
	if json.Unmarshal(raw, &d) != nil {
		return ""
	}
	return d.Actions[action].Target
}

func (c *client) System(ctx context.Context) (bmcclient.System, error) {
	sys, err := c.system(ctx)
	if err != nil {
		return bmcclient.System{}, err
	}
	s := bmcclient.System{
		PowerState:   string(sys.PowerState),
		Health:       string(sys.Status.Health),
		State:        string(sys.Status.State),
		BootProgress: string(sys.BootProgress.LastState),
		BootOverride: string(sys.Boot.BootSourceOverrideEnabled),
		BootTarget:   string(sys.Boot.BootSourceOverrideTarget),
		ETag:         sys.GetETag(),
	}
	s.BootModeShown, s.BootMode, s.BootModes = bootModeOf(sys.RawData)
	for _, t := range sys.Boot.AllowableBootSourceOverrideTargetValues {
		s.BootTargets = append(s.BootTargets, string(t))
	}
	if !c.resetTypesRead { // an ActionInfo is a GET of its own: read it once, a miss (404) too
		c.resetTypesRead = true
		types, _ := sys.GetSupportedResetTypes() // optional: an ActionInfo miss is not fatal
		for _, t := range types {
			c.resetTypes = append(c.resetTypes, string(t))
		}
	}
	s.ResetTypes = c.resetTypes
	return s, nil
}

func (c *client) SetBootOverride(ctx context.Context, o bmcclient.BootOverride, etag string) error {
	if c.sysURI == "" {
		if _, err := c.system(ctx); err != nil {
			return err
		}
	}
	headers := map[string]string{}
	if etag != "" {
		headers["If-Match"] = etag
	}
	boot := map[string]string{"BootSourceOverrideEnabled": o.Enabled, "BootSourceOverrideTarget": o.Target}
	if o.Mode != "" {
		boot["BootSourceOverrideMode"] = o.Mode
	}
	body := map[string]any{"Boot": boot}
	return c.call(ctx, func(api *gofish.APIClient) error {
		resp, err := api.PatchWithHeaders(c.sysURI, body, headers)
		schemas.DeferredCleanupHTTPResponse(resp)
		return err
	})
}

func (c *client) Reset(ctx context.Context, resetType string) (bmcclient.Accepted, error) {
	if c.resetTarget == "" {
		if _, err := c.system(ctx); err != nil {
			return bmcclient.Accepted{}, err
		}
		if c.resetTarget == "" {
			return bmcclient.Accepted{}, rejected("the System offers no ComputerSystem.Reset action")
		}
	}
	return c.action(ctx, c.resetTarget, map[string]string{"ResetType": resetType})
}

// postMedia runs a media action, bounded by ctx alone; a 202 yields its
// task monitor.
func (c *client) postMedia(ctx context.Context, target string, body any) (string, error) {
	a, err := c.actionWith(ctx, c.unbounded, target, body)
	return a.Task, err
}

// action runs an action and keeps the answer's status (errors quote it).
func (c *client) action(ctx context.Context, target string, body any) (bmcclient.Accepted, error) {
	return c.actionWith(ctx, nil, target, body)
}

func (c *client) actionWith(ctx context.Context, hc *http.Client, target string, body any) (bmcclient.Accepted, error) {
	return c.send(ctx, hc, target, body, false, nil)
}

// send posts body (multipart: a map of parts) to target; before, when
// set, runs ahead of every try (rewinding a file).
func (c *client) send(ctx context.Context, hc *http.Client, target string, body any, multipart bool, before func() error) (bmcclient.Accepted, error) {
	var out bmcclient.Accepted
	err := c.callWith(ctx, hc, func(api *gofish.APIClient) error {
		if before != nil {
			if err := before(); err != nil {
				return err
			}
		}
		resp, info, err := schemas.PostWithTask(api, target, body, map[string]string{}, multipart)
		if resp != nil {
			out.Status = resp.StatusCode
		}
		schemas.DeferredCleanupHTTPResponse(resp)
		out.Task = monitor(info)
		return err
	})
	return out, err
}

func monitor(info *schemas.TaskMonitorInfo) string {
	if info == nil {
		return ""
	}
	return info.TaskMonitor
}

// Task reads a task monitor: 202 means running (DSP0266); any other
// success is the finished task, or the action's own result when the body
// is not a Task.
func (c *client) Task(ctx context.Context, uri string) (bmcclient.Task, error) {
	var resp *http.Response
	err := c.call(ctx, func(api *gofish.APIClient) (err error) {
		resp, err = api.Get(uri)
		return err
	})
	defer schemas.DeferredCleanupHTTPResponse(resp)
	if err != nil {
		return bmcclient.Task{}, err
	}
	var t schemas.Task
	_ = json.NewDecoder(resp.Body).Decode(&t) // a finished monitor may return no Task
	out := bmcclient.Task{State: string(t.TaskState)}
	if t.PercentComplete != nil {
		out.Percent = int(*t.PercentComplete)
	}
	var msgs []string // every message: a staged update may say so only in a later one
	for _, m := range t.Messages {
		if m.Message != "" {
			msgs = append(msgs, m.Message)
		}
	}
	out.Message = strings.Join(msgs, "; ")
	if out.State == "" {
		out.State = "Completed"
		if resp.StatusCode == http.StatusAccepted {
			out.State = "Running"
		}
	}
	return out, nil
}
