package gofishclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// readUpdateShape reads the UpdateService (updateparams.go says what of
// it). Its failure is NotSent: no update request went out.
func (c *client) readUpdateShape(ctx context.Context) (updateShape, error) {
	var shape updateShape
	err := c.call(ctx, func(api *gofish.APIClient) error {
		us, err := updateService(api)
		if err == nil {
			shape = parseUpdateShape(us.RawData)
		}
		return err
	})
	if err != nil {
		return shape, notSent(err)
	}
	return shape, nil
}

// notSent marks a failure before the request as one that started
// nothing; the client's own refusals say so already (they are Failures).
func notSent(err error) error {
	var f *bmcclient.Failure
	if err == nil || errors.As(err, &f) {
		return err
	}
	return &bmcclient.NotSent{Err: err}
}

// SimpleUpdate posts UpdateService.SimpleUpdate with what its ActionInfo
// requires (simpleUpdateBody); an ActionInfo the BMC does not serve (404)
// is taken as none.
func (c *client) SimpleUpdate(ctx context.Context, req bmcclient.UpdateRequest) (bmcclient.Accepted, error) {
	shape, err := c.readUpdateShape(ctx)
	if err != nil {
		return bmcclient.Accepted{}, err
	}
	if shape.simple == "" {
		return bmcclient.Accepted{}, rejected("the BMC's UpdateService offers no SimpleUpdate action (it may take pushed images: apply.method MultipartPush)")
	}
	var params map[string]actionParam
	if shape.actionInfo != "" {
		var raw json.RawMessage
		switch err := c.getJSON(ctx, shape.actionInfo, &raw); {
		case bmcclient.NotFound(err):
		case err != nil:
			return bmcclient.Accepted{}, notSent(err)
		default:
			if params, err = actionParams(raw); err != nil {
				return bmcclient.Accepted{}, notSent(err)
			}
		}
	}
	body, err := simpleUpdateBody(req, shape, params, func(allowed []string) ([]string, error) {
		return chooseTargets(req.Kind, req.RelatedItem, allowed, func() (string, error) { return c.owner(ctx, req.Kind) })
	})
	if err != nil {
		return bmcclient.Accepted{}, notSent(err)
	}
	return c.post(ctx, shape.simple, func() (any, bool, error) { return body, false, nil })
}

// PushUpdate posts file to the MultipartHttpPushUri as the parts
// UpdateParameters (JSON: Targets, @Redfish.OperationApplyTime) and
// UpdateFile (DSP0266 multipart HTTP push). Targets are always named: an
// empty list leaves the choice to the BMC, which Supermicro's does not
// make (bmclib names the Manager, or the System's Bios).
func (c *client) PushUpdate(ctx context.Context, file *os.File, req bmcclient.UpdateRequest) (bmcclient.Accepted, error) {
	shape, err := c.readUpdateShape(ctx)
	if err != nil {
		return bmcclient.Accepted{}, err
	}
	if shape.push == "" {
		return bmcclient.Accepted{}, rejected("the BMC's UpdateService has no MultipartHttpPushUri (use apply.method SimpleUpdate)")
	}
	targets, err := chooseTargets(req.Kind, req.RelatedItem, nil, func() (string, error) { return c.owner(ctx, req.Kind) })
	if err != nil {
		return bmcclient.Accepted{}, notSent(err)
	}
	params := pushParameters(targets, req.ApplyTime)
	return c.post(ctx, shape.push, func() (any, bool, error) {
		if _, err := file.Seek(0, io.SeekStart); err != nil { // a try after a new login sends it all again
			return nil, true, err
		}
		return map[string]io.Reader{"UpdateParameters": strings.NewReader(params), "UpdateFile": file}, true, nil
	})
}

// PushApplyTime reads the apply times the push takes (pushApplyTime).
func (c *client) PushApplyTime(ctx context.Context, asked string) (string, bool, error) {
	shape, err := c.readUpdateShape(ctx)
	if err != nil {
		return "", false, err
	}
	return pushApplyTime(asked, shape.pushTimes, shape.start != "")
}

// StartUpdate posts UpdateService.StartUpdate (no parameters).
func (c *client) StartUpdate(ctx context.Context) (bmcclient.Accepted, error) {
	shape, err := c.readUpdateShape(ctx)
	if err != nil {
		return bmcclient.Accepted{}, err
	}
	if shape.start == "" {
		return bmcclient.Accepted{}, rejected("the BMC's UpdateService offers no StartUpdate action")
	}
	return c.post(ctx, shape.start, func() (any, bool, error) { return map[string]any{}, false, nil })
}

// owner is the resource firmware of kind belongs to: the Manager for the
// BMC's own, the System for the rest.
func (c *client) owner(ctx context.Context, kind string) (string, error) {
	if kind != "bmc" {
		sys, err := c.system(ctx)
		if err != nil {
			return "", err
		}
		return sys.ODataID, nil
	}
	var d struct {
		Members []struct {
			ID string `json:"@odata.id"`
		}
	}
	if err := c.getJSON(ctx, "/redfish/v1/Managers", &d); err != nil {
		return "", err
	}
	if len(d.Members) == 0 {
		return "", rejected("the BMC lists no Manager to name as the update's target")
	}
	return d.Members[0].ID, nil
}

// post sends an update request; payload builds its body for each try (a
// try after a new login sends it again). Any 2xx is accepted, its task
// found however the BMC announced it (announcedTask).
func (c *client) post(ctx context.Context, target string, payload func() (body any, multipart bool, err error)) (bmcclient.Accepted, error) {
	var out bmcclient.Accepted
	err := c.call(ctx, func(api *gofish.APIClient) error {
		body, multipart, err := payload()
		if err != nil {
			return err
		}
		var resp *http.Response
		if multipart {
			resp, err = api.PostMultipartWithHeaders(target, body.(map[string]io.Reader), nil)
		} else {
			resp, err = api.PostWithHeaders(target, body, nil)
		}
		defer schemas.DeferredCleanupHTTPResponse(resp)
		if err != nil {
			return err
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20)) // the status is the answer; a body only adds a task
		out = bmcclient.Accepted{Status: resp.StatusCode, Task: announcedTask(resp.Header.Get("Location"), raw)}
		return nil
	})
	return out, err
}

// announcedTask finds the task an accepted update names, however the BMC
// announced it: a Location header on any 2xx (DSP0266 asks it of a 202;
// sushy-tools sends it with a 204), else in the body a Task (its
// @odata.id), a TaskMonitor, or a TaskService/Tasks URI anywhere (iDRAC's
// @odata.id, Supermicro's MessageArgs: bmclib's taskIDFromResponseBody).
// "" when none.
func announcedTask(location string, body []byte) string {
	if location != "" {
		return localURI(location)
	}
	var d map[string]any
	if json.Unmarshal(body, &d) != nil {
		return ""
	}
	id, _ := d["@odata.id"].(string)
	typ, _ := d["@odata.type"].(string)
	mon, _ := d["TaskMonitor"].(string)
	switch {
	case id != "" && (strings.Contains(typ, "#Task.") || isTaskURI(id)):
		return localURI(id) // the Task itself: it shows its state
	case mon != "":
		return localURI(mon)
	}
	return localURI(findTaskURI(d))
}

func isTaskURI(s string) bool { return strings.Contains(s, "/TaskService/Tasks/") }

// findTaskURI is the first string under v that is a task's URI.
func findTaskURI(v any) string {
	switch x := v.(type) {
	case string:
		if isTaskURI(x) {
			return x
		}
	case []any:
		for _, e := range x {
			if s := findTaskURI(e); s != "" {
				return s
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) { // the same answer, the same task
			if s := findTaskURI(x[k]); s != "" {
				return s
			}
		}
	}
	return ""
}

// localURI turns an absolute URL into its path (gofish prefixes the
// BMC's address to what it requests).
func localURI(s string) string {
	if u, err := url.Parse(s); err == nil && u.IsAbs() {
		s = u.RequestURI()
	}
	return s
}
