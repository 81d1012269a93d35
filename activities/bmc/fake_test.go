package bmc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
)

var _ bmcclient.Client = (*fakeClient)(nil)

// fakeClient is an instant machine behind the Client interface: resets
// take effect at once unless onReset says otherwise.
type fakeClient struct {
	mu       sync.Mutex
	sys      bmcclient.System
	media    []bmcclient.MediaInfo
	tasks    map[string]bmcclient.Task
	calls    []string
	errs     map[string][]error // queued errors per method, one per call
	onReset  func(f *fakeClient, rt string) (task string, err error)
	onInsert func(f *fakeClient, m bmcclient.MediaInfo, p bmcclient.InsertParams) error // nil: accept
	booted   []string                                                                   // the one-time boot targets resets consumed
	// What a BMC answers and ignores: an image it cannot fetch, an eject,
	// a one-time boot it keeps as Continuous (sushy-tools).
	unmountable, ejectIgnored, continuous bool
	// A BMC that answers 400 to a Boot PATCH carrying the mode (HPE
	// DL160 Gen10), or takes the PATCH and keeps its mode.
	modeRefused, modeIgnored bool
	etag                     int
	creds                    bmcclient.Credentials
	closed                   int
	fw                       firmware.Server // what Firmware reads
}

const cdURI = "/redfish/v1/Systems/1/VirtualMedia/1"

func newFake() *fakeClient {
	return &fakeClient{
		sys: bmcclient.System{PowerState: "On", Health: "OK", State: "Enabled", BootProgress: "OSRunning",
			BootOverride: "Disabled", BootTarget: "None"},
		media: []bmcclient.MediaInfo{cdMember("1", cdURI)},
		tasks: map[string]bmcclient.Task{},
		errs:  map[string][]error{},
	}
}

// cdMember is a CD drive with both actions.
func cdMember(id, uri string) bmcclient.MediaInfo {
	return bmcclient.MediaInfo{URI: uri, ID: id, Location: "System", MediaTypes: []string{"CD", "DVD"},
		InsertTarget: uri + "/Actions/VirtualMedia.InsertMedia", EjectTarget: uri + "/Actions/VirtualMedia.EjectMedia"}
}

// httpErr is a BMC's refusal as a client reports it: the status, the
// Redfish error, and the whole body as its text.
func httpErr(code int) error {
	msg := fmt.Sprintf("injected %d", code)
	body := `{"error":{"code":"Base.1.12.X","message":"` + msg + `"}}`
	return &bmcclient.StatusError{Status: code, Code: "Base.1.12.X", Message: msg, Err: fmt.Errorf("%d: %s", code, body)}
}

// call records a call and pops a queued error; the caller holds f.mu.
func (f *fakeClient) call(name string, detail ...string) error {
	f.calls = append(f.calls, strings.TrimSpace(name+" "+strings.Join(detail, " ")))
	if q := f.errs[name]; len(q) > 0 {
		f.errs[name] = q[1:]
		return q[0]
	}
	return nil
}

func (f *fakeClient) changed() { f.etag++; f.sys.ETag = fmt.Sprintf(`"%d"`, f.etag) }

func (f *fakeClient) System(context.Context) (bmcclient.System, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("System"); err != nil {
		return bmcclient.System{}, err
	}
	if f.sys.ETag == "" {
		f.changed()
	}
	return f.sys, nil
}

func (f *fakeClient) SetBootOverride(_ context.Context, o bmcclient.BootOverride, etag string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	enabled, target := o.Enabled, o.Target
	if err := f.call("SetBootOverride", enabled, target, o.Mode); err != nil {
		return err
	}
	if etag != f.sys.ETag {
		return httpErr(412)
	}
	if o.Mode != "" && f.modeRefused {
		return httpErr(400)
	}
	if f.continuous && enabled == "Once" {
		enabled = "Continuous"
	}
	f.sys.BootOverride, f.sys.BootTarget = enabled, target
	if o.Mode != "" && !f.modeIgnored {
		f.sys.BootMode = o.Mode
	}
	f.changed()
	return nil
}

func (f *fakeClient) Reset(_ context.Context, rt string) (bmcclient.Accepted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Reset", rt); err != nil {
		return bmcclient.Accepted{}, err
	}
	if f.onReset != nil {
		task, err := f.onReset(f, rt)
		return accepted(task), err
	}
	f.apply(rt)
	return accepted(""), nil
}

// apply carries out a reset instantly; a boot consumes the one-time
// override.
func (f *fakeClient) apply(rt string) {
	defer f.changed()
	if rt == "ForceOff" || rt == "GracefulShutdown" {
		f.sys.PowerState, f.sys.BootProgress = "Off", "None"
		return
	}
	f.sys.PowerState, f.sys.BootProgress = "On", "OSBootStarted" // the OS is booting again
	if f.sys.BootOverride == "Once" {
		f.booted = append(f.booted, f.sys.BootTarget)
		f.sys.BootOverride, f.sys.BootTarget = "Disabled", "None"
	}
}

func (f *fakeClient) MediaCollections(context.Context) ([]bmcclient.MediaCollection, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("MediaCollections"); err != nil {
		return nil, err
	}
	var out []bmcclient.MediaCollection
	for _, loc := range []string{"System", "Manager"} {
		if slices.ContainsFunc(f.media, func(m bmcclient.MediaInfo) bool { return m.Location == loc }) {
			out = append(out, bmcclient.MediaCollection{URI: "/" + loc + "/VirtualMedia", Location: loc})
		}
	}
	return out, nil
}

func (f *fakeClient) MediaMembers(_ context.Context, coll bmcclient.MediaCollection) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("MediaMembers"); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range f.media {
		if m.Location == coll.Location {
			out = append(out, m.URI)
		}
	}
	return out, nil
}

// member finds a drive by URI; the caller holds f.mu.
func (f *fakeClient) member(uri string) *bmcclient.MediaInfo {
	for i := range f.media {
		if f.media[i].URI == uri {
			return &f.media[i]
		}
	}
	return nil
}

func (f *fakeClient) Medium(_ context.Context, m bmcclient.MediaInfo) (bmcclient.MediaInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Medium", m.ID); err != nil {
		return bmcclient.MediaInfo{}, err
	}
	if cur := f.member(m.URI); cur != nil {
		return *cur, nil
	}
	return bmcclient.MediaInfo{}, httpErr(404)
}

func (f *fakeClient) InsertMedia(_ context.Context, m bmcclient.MediaInfo, p bmcclient.InsertParams) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("InsertMedia", m.ID, p.Image); err != nil {
		return "", err
	}
	if f.onInsert != nil {
		if err := f.onInsert(f, m, p); err != nil {
			return "", err
		}
	}
	cur := f.member(m.URI)
	if occupied(*cur) {
		return "", httpErr(409)
	}
	if f.unmountable {
		return "", nil
	}
	cur.Image, cur.Inserted = p.Image, true
	return "", nil
}

func (f *fakeClient) EjectMedia(_ context.Context, m bmcclient.MediaInfo) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("EjectMedia", m.ID); err != nil {
		return "", err
	}
	if !f.ejectIgnored {
		cur := f.member(m.URI)
		cur.Image, cur.Inserted = "", false
	}
	return "", nil
}

func (f *fakeClient) Task(_ context.Context, uri string) (bmcclient.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Task", uri); err != nil {
		return bmcclient.Task{}, err
	}
	t, ok := f.tasks[uri]
	if !ok {
		return bmcclient.Task{}, httpErr(404)
	}
	return t, nil
}

func (f *fakeClient) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed++
}

// count returns how many recorded calls start with prefix.
func (f *fakeClient) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// mutations lists the calls that change the machine, in order.
func (f *fakeClient) mutations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		switch strings.SplitN(c, " ", 2)[0] {
		case "System", "MediaCollections", "MediaMembers", "Medium", "Task":
		default:
			out = append(out, c)
		}
	}
	return out
}

// testPassword is made per run (the emulator's): no credential lives in
// the code.
var testPassword = redfishtest.Password

var testEnv = map[string]string{"BMC_USER": "root", "BMC_PASS": testPassword}

var testEndpoint = Endpoint{
	BMM: "rack1-c1", Address: "https://10.1.0.11",
	Credentials: CredentialRef{UsernameEnv: "BMC_USER", PasswordEnv: "BMC_PASS"},
}

// activitiesWith returns activities that dial f and poll fast.
func activitiesWith(f *fakeClient) *Activities {
	return &Activities{
		Dial: func(_ context.Context, _ bmcclient.Endpoint, c bmcclient.Credentials, _ time.Duration) (bmcclient.Client, error) {
			f.mu.Lock()
			f.creds = c
			f.mu.Unlock()
			return f, nil
		},
		Resolver: EnvFileResolver{LookupEnv: func(k string) (string, bool) {
			v, ok := testEnv[k]
			return v, ok
		}},
		PollInterval: time.Millisecond,
		Backoff:      time.Millisecond,
		Attempts:     3,
		ImageClient:  noImageServer,
	}
}

// noImageServer: unit tests ask no image server where a URL redirects.
var noImageServer = &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
	return nil, errors.New("no image server in this test")
})}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// appError asserts err is an ApplicationError of the given type and
// retryability, that it names the BMM, and that no password leaked.
func appError(t *testing.T, err error, typ string, retryable bool) *temporal.ApplicationError {
	t.Helper()
	var ae *temporal.ApplicationError
	require.True(t, errors.As(err, &ae), "want an ApplicationError, got %T: %v", err, err)
	require.Equal(t, typ, ae.Type(), ae.Error())
	require.Equal(t, !retryable, ae.NonRetryable(), ae.Error())
	require.Contains(t, ae.Error(), "rack1-c1")
	require.NotContains(t, ae.Error(), testPassword)
	return ae
}

func (f *fakeClient) Firmware(context.Context) (firmware.Server, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Firmware"); err != nil {
		return firmware.Server{}, err
	}
	return f.fw, nil
}

func (f *fakeClient) SimpleUpdate(_ context.Context, req bmcclient.UpdateRequest) (bmcclient.Accepted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bmcclient.Accepted{}, f.call("SimpleUpdate", req.Image, req.ApplyTime)
}

func (f *fakeClient) PushUpdate(_ context.Context, file *os.File, req bmcclient.UpdateRequest) (bmcclient.Accepted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bmcclient.Accepted{}, f.call("PushUpdate", filepath.Base(file.Name()), req.ApplyTime)
}

func (f *fakeClient) PushApplyTime(_ context.Context, asked string) (string, bool, error) {
	return asked, false, nil
}

func (f *fakeClient) StartUpdate(context.Context) (bmcclient.Accepted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bmcclient.Accepted{}, f.call("StartUpdate")
}
