package bmc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// DialGofish connects with gofish using HTTP basic auth: no session to leak
// when a worker dies mid-activity (BMCs allow few sessions). TLS is
// verified unless the endpoint says otherwise.
func DialGofish(ctx context.Context, ep Endpoint, creds Credentials, timeout time.Duration) (Client, error) {
	base, err := baseURL(ep.Address)
	if err != nil {
		return nil, &failure{kindConfig, err.Error()}
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: ep.InsecureSkipVerify} //nolint:gosec // opt-in per BMC
	if ep.CAFile != "" {
		pem, err := os.ReadFile(ep.CAFile)
		if err != nil {
			return nil, &failure{kindConfig, fmt.Sprintf("read the BMC's CA file %s: %v", ep.CAFile, err)}
		}
		tlsConf.RootCAs = x509.NewCertPool()
		if !tlsConf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &failure{kindConfig, "the BMC's CA file " + ep.CAFile + " holds no PEM certificate"}
		}
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     30 * time.Second,
		MaxIdleConnsPerHost: 2,
	}
	api, err := gofish.ConnectContext(ctx, gofish.ClientConfig{
		Endpoint:          base,
		Username:          creds.Username,
		Password:          creds.Password,
		HTTPClient:        &http.Client{Transport: tr, Timeout: timeout},
		NoModifyTransport: true,
		BasicAuth:         true,
		ReuseConnections:  true,
	})
	if err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	return &gofishClient{api: api}, nil
}

// gofishClient remembers what it discovered (URIs, action targets) so a
// poll or an action is a single request.
type gofishClient struct {
	api          *gofish.APIClient
	sysURI       string
	resetTarget  string
	imageKnown   bool
	imageURI     string
	mediaURI     string
	mediaLoc     string
	insertTarget string
	ejectTarget  string
}

func (c *gofishClient) Close() { c.api.HTTPClient.CloseIdleConnections() }

func (c *gofishClient) system(ctx context.Context) (*schemas.ComputerSystem, error) {
	api := c.api.WithContext(ctx)
	var sys *schemas.ComputerSystem
	if c.sysURI != "" {
		var err error
		if sys, err = schemas.GetObject[schemas.ComputerSystem](api, c.sysURI); err != nil {
			return nil, err
		}
	} else {
		systems, err := api.Service.Systems()
		if err != nil {
			return nil, err
		}
		if len(systems) == 0 {
			return nil, &failure{kindRejected, "the BMC lists no ComputerSystem"}
		}
		sys = systems[0]
		c.sysURI = sys.ODataID
	}
	c.resetTarget = actionTarget(sys.RawData, "#ComputerSystem.Reset")
	return sys, nil
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

func (c *gofishClient) System(ctx context.Context) (System, error) {
	sys, err := c.system(ctx)
	if err != nil {
		return System{}, err
	}
	s := System{
		PowerState:   string(sys.PowerState),
		Health:       string(sys.Status.Health),
		State:        string(sys.Status.State),
		BootProgress: string(sys.BootProgress.LastState),
		BootOverride: string(sys.Boot.BootSourceOverrideEnabled),
		BootTarget:   string(sys.Boot.BootSourceOverrideTarget),
		ETag:         sys.GetETag(),
	}
	types, _ := sys.GetSupportedResetTypes() // optional: an ActionInfo miss is not fatal
	for _, t := range types {
		s.ResetTypes = append(s.ResetTypes, string(t))
	}
	return s, nil
}

// OSImage follows System → OperatingSystem → Links.SoftwareImage once
// (DSP8010 OperatingSystem v1.0); a BMC without them is normal.
func (c *gofishClient) OSImage(ctx context.Context) (OSImage, error) {
	if c.imageKnown {
		if c.imageURI == "" {
			return OSImage{}, nil
		}
		img, err := schemas.GetObject[schemas.SoftwareInventory](c.api.WithContext(ctx), c.imageURI)
		if err != nil {
			return OSImage{}, err
		}
		return OSImage{Version: img.Version, Health: string(img.Status.Health)}, nil
	}
	sys, err := c.system(ctx)
	if err != nil {
		return OSImage{}, err
	}
	os, err := sys.OperatingSystem()
	if err != nil && !isNotFound(err) {
		return OSImage{}, err
	}
	var img *schemas.SoftwareInventory
	if os != nil {
		if img, err = os.SoftwareImage(); err != nil && !isNotFound(err) {
			return OSImage{}, err
		}
	}
	c.imageKnown = true
	if img == nil {
		return OSImage{}, nil
	}
	c.imageURI = img.ODataID
	return OSImage{Version: img.Version, Health: string(img.Status.Health)}, nil
}

func (c *gofishClient) SetBootOverride(ctx context.Context, enabled, target, etag string) error {
	if c.sysURI == "" {
		if _, err := c.system(ctx); err != nil {
			return err
		}
	}
	headers := map[string]string{}
	if etag != "" {
		headers["If-Match"] = etag
	}
	body := map[string]any{"Boot": map[string]string{"BootSourceOverrideEnabled": enabled, "BootSourceOverrideTarget": target}}
	resp, err := c.api.WithContext(ctx).PatchWithHeaders(c.sysURI, body, headers)
	schemas.DeferredCleanupHTTPResponse(resp)
	return err
}

func (c *gofishClient) Reset(ctx context.Context, resetType string) (string, error) {
	if c.resetTarget == "" {
		if _, err := c.system(ctx); err != nil {
			return "", err
		}
		if c.resetTarget == "" {
			return "", &failure{kindRejected, "the System offers no ComputerSystem.Reset action"}
		}
	}
	return c.post(ctx, c.resetTarget, map[string]string{"ResetType": resetType})
}

// post runs an action; a 202 yields its task monitor.
func (c *gofishClient) post(ctx context.Context, target string, body any) (string, error) {
	resp, info, err := schemas.PostWithTask(c.api.WithContext(ctx), target, body, map[string]string{}, false)
	schemas.DeferredCleanupHTTPResponse(resp)
	return monitor(info), err
}

func monitor(info *schemas.TaskMonitorInfo) string {
	if info == nil {
		return ""
	}
	return info.TaskMonitor
}

// media finds the CD drive once: the System's VirtualMedia first (iDRAC
// 6.x+ and most BMCs), then each Manager's (older iDRAC).
func (c *gofishClient) media(ctx context.Context) (*schemas.VirtualMedia, error) {
	api := c.api.WithContext(ctx)
	if c.mediaURI != "" {
		vm, err := schemas.GetObject[schemas.VirtualMedia](api, c.mediaURI)
		if err != nil {
			return nil, err
		}
		c.found(vm, c.mediaLoc)
		return vm, nil
	}
	sys, err := c.system(ctx)
	if err != nil {
		return nil, err
	}
	list, err := sys.VirtualMedia()
	if cd, err := c.foundIn("System", list, err); cd != nil || err != nil {
		return cd, err
	}
	managers, err := sys.ManagedBy()
	if err != nil || len(managers) == 0 {
		if managers, err = api.Service.Managers(); err != nil {
			return nil, err
		}
	}
	for _, m := range managers {
		list, err := m.VirtualMedia()
		if cd, err := c.foundIn("Manager", list, err); cd != nil || err != nil {
			return cd, err
		}
	}
	return nil, &failure{kindRejected, "the BMC has no virtual CD under the System or the Manager"}
}

func (c *gofishClient) found(vm *schemas.VirtualMedia, loc string) {
	c.mediaURI, c.mediaLoc = vm.ODataID, loc
	c.insertTarget = actionTarget(vm.RawData, "#VirtualMedia.InsertMedia")
	c.ejectTarget = actionTarget(vm.RawData, "#VirtualMedia.EjectMedia")
}

// foundIn remembers the CD drive among the media listed at loc, if any
// (a missing collection lists none); err is the listing's.
func (c *gofishClient) foundIn(loc string, list []*schemas.VirtualMedia, err error) (*schemas.VirtualMedia, error) {
	if err != nil && !isNotFound(err) {
		return nil, err
	}
	cd := pickCD(list)
	if cd != nil {
		c.found(cd, loc)
	}
	return cd, nil
}

// pickCD prefers a drive that takes CDs/DVDs over, say, a virtual floppy.
func pickCD(list []*schemas.VirtualMedia) *schemas.VirtualMedia {
	for _, vm := range list {
		if slices.Contains(vm.MediaTypes, schemas.CDVirtualMediaType) || slices.Contains(vm.MediaTypes, schemas.DVDVirtualMediaType) {
			return vm
		}
	}
	if len(list) > 0 {
		return list[0]
	}
	return nil
}

func (c *gofishClient) Media(ctx context.Context) (Media, error) {
	vm, err := c.media(ctx)
	if err != nil {
		return Media{}, err
	}
	return Media{URI: vm.ODataID, Location: c.mediaLoc, Image: vm.Image, Inserted: gofish.Deref(vm.Inserted)}, nil
}

func (c *gofishClient) InsertMedia(ctx context.Context, image string) (string, error) {
	if c.insertTarget == "" {
		vm, err := c.media(ctx)
		if err != nil {
			return "", err
		}
		if c.insertTarget == "" { // no action (e.g. Lenovo XCC): gofish PATCHes instead
			info, err := vm.InsertMedia(insertParams(image))
			return monitor(info), err
		}
	}
	return c.post(ctx, c.insertTarget, insertParams(image))
}

func insertParams(image string) *schemas.VirtualMediaInsertMediaParameters {
	p := &schemas.VirtualMediaInsertMediaParameters{
		Image:          image,
		Inserted:       gofish.ToRef(true),
		WriteProtected: gofish.ToRef(true),
	}
	if proto := transferProtocol(image); proto != "" {
		p.TransferProtocolType = gofish.ToRef(schemas.TransferProtocolType(proto))
	}
	return p
}

func (c *gofishClient) EjectMedia(ctx context.Context) (string, error) {
	if c.ejectTarget == "" {
		vm, err := c.media(ctx)
		if err != nil {
			return "", err
		}
		if c.ejectTarget == "" {
			info, err := vm.EjectMedia()
			return monitor(info), err
		}
	}
	return c.post(ctx, c.ejectTarget, map[string]any{})
}

// Task reads a task monitor: 202 means running (DSP0266); any other
// success is the finished task, or the action's own result when the body
// is not a Task.
func (c *gofishClient) Task(ctx context.Context, uri string) (Task, error) {
	resp, err := c.api.WithContext(ctx).Get(uri)
	defer schemas.DeferredCleanupHTTPResponse(resp)
	if err != nil {
		return Task{}, err
	}
	var t schemas.Task
	_ = json.NewDecoder(resp.Body).Decode(&t) // a finished monitor may return no Task
	out := Task{State: string(t.TaskState)}
	if len(t.Messages) > 0 {
		out.Message = t.Messages[0].Message
	}
	if out.State == "" {
		out.State = "Completed"
		if resp.StatusCode == http.StatusAccepted {
			out.State = "Running"
		}
	}
	return out, nil
}

func isNotFound(err error) bool {
	var rf *schemas.Error
	return errors.As(err, &rf) && rf.HTTPReturnedStatusCode == http.StatusNotFound
}
