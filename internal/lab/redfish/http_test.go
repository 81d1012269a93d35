package redfish

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestETagGuardsPatch(t *testing.T) {
	r := newRig(t)
	get := r.do(http.MethodGet, systemPath, nil)
	tag := get.header.Get("ETag")
	require.NotEmpty(t, tag)
	assert.Equal(t, tag, get.body["@odata.etag"])
	assert.Equal(t, http.StatusNotModified, r.doH(http.MethodGet, systemPath, nil, "If-None-Match", tag).code)

	once := map[string]any{"Boot": map[string]any{"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": "Cd"}}
	rep := r.doH(http.MethodPatch, systemPath, once, "If-Match", `"stale"`)
	assert.Equal(t, http.StatusPreconditionFailed, rep.code)
	assert.Contains(t, field(rep.body, "error", "code"), "PreconditionFailed")

	rep = r.doH(http.MethodPatch, systemPath, once, "If-Match", tag)
	require.Equal(t, http.StatusOK, rep.code)
	assert.NotEqual(t, tag, rep.header.Get("ETag"), "the change makes a new tag")
	assert.Equal(t, http.StatusPreconditionFailed, r.doH(http.MethodPatch, systemPath, once, "If-Match", tag).code, "the old tag is stale now")

	r.b.SetFault(faults.StaleETag, 1)
	cur := r.do(http.MethodGet, systemPath, nil).header.Get("ETag")
	assert.Equal(t, http.StatusPreconditionFailed, r.doH(http.MethodPatch, systemPath, once, "If-Match", cur).code, "stale-etag refuses even the right tag")
	assert.Equal(t, http.StatusOK, r.do(http.MethodPatch, systemPath, once).code, "without If-Match there is nothing to refuse")
}

func TestVirtualMediaIsOneDriveInTwoPlaces(t *testing.T) {
	r := newRig(t)
	ins := r.do(http.MethodPost, mgrCDPath+insertAction, map[string]any{
		"Image": "http://user:secret@images.lab/rackroll-4.2.0.iso", "Inserted": true, "WriteProtected": true, "Password": "secret"})
	require.Equal(t, http.StatusAccepted, ins.code, ins.body)
	_, st := r.taskState(ins.header.Get("Location"))
	assert.Equal(t, taskCompleted, st)

	for _, p := range []string{sysCDPath, mgrCDPath} {
		cd := r.do(http.MethodGet, p, nil).body
		assert.Equal(t, true, cd["Inserted"], p)
		assert.Equal(t, "http://images.lab/rackroll-4.2.0.iso", cd["Image"], "user info is never shown")
		assert.Nil(t, cd["Password"])
	}

	again := r.do(http.MethodPost, sysCDPath+insertAction, map[string]any{"Image": "http://images.lab/rackroll-4.3.0.iso"})
	assert.Equal(t, http.StatusConflict, again.code)
	assert.Contains(t, field(again.body, "error", "code"), "ResourceInUse")
	assert.NotNil(t, field(again.body, "error", "@Message.ExtendedInfo"))

	assert.Equal(t, http.StatusNoContent, r.do(http.MethodPost, sysCDPath+ejectAction, nil).code)
	assert.Equal(t, false, r.do(http.MethodGet, mgrCDPath, nil).body["Inserted"])
	assert.Equal(t, http.StatusNoContent, r.do(http.MethodPost, sysCDPath+ejectAction, nil).code, "ejecting an empty drive is a no-op")
	assert.Equal(t, 1, r.count(events.MediaInsert))
	assert.Equal(t, 1, r.count(events.MediaEject))
	for _, e := range r.log.Events() {
		assert.NotContains(t, e.Detail["image"], "secret")
	}

	bad := r.do(http.MethodPost, sysCDPath+insertAction, map[string]any{"Image": "rackroll.iso"})
	assert.Equal(t, http.StatusBadRequest, bad.code)
	missing := r.do(http.MethodPost, sysCDPath+insertAction, map[string]any{})
	assert.Equal(t, http.StatusBadRequest, missing.code)
}

func TestManagerVirtualMediaOnly(t *testing.T) {
	r := newRig(t, func(c *Config) { c.ManagerVirtualMediaOnly = true })
	assert.Nil(t, r.system()["VirtualMedia"])
	assert.Equal(t, http.StatusNotFound, r.do(http.MethodGet, sysCDPath, nil).code)
	assert.Equal(t, http.StatusNotFound, r.do(http.MethodPost, sysCDPath+insertAction, map[string]any{"Image": "http://x/rackroll-1.iso"}).code)
	assert.Equal(t, http.StatusOK, r.do(http.MethodGet, mgrCDPath, nil).code)
}

func TestAuth(t *testing.T) {
	r := newRig(t)
	assert.Equal(t, http.StatusOK, r.do(http.MethodGet, rootPath+"/", nil, "").code, "service root is public")
	assert.Equal(t, http.StatusOK, r.do(http.MethodGet, "/redfish", nil, "").code)
	noAuth := r.do(http.MethodGet, systemPath, nil, "")
	assert.Equal(t, http.StatusUnauthorized, noAuth.code)
	assert.NotEmpty(t, noAuth.header.Get("WWW-Authenticate"))
	assert.Equal(t, http.StatusUnauthorized, r.do(http.MethodGet, systemPath, nil, "bogus-token").code)
	assert.Equal(t, http.StatusUnauthorized, r.doH(http.MethodGet, systemPath, nil, "Authorization", "Basic cm9vdDp3cm9uZw==").code)

	bad := r.do(http.MethodPost, sessionsPath, map[string]any{"UserName": "root", "Password": "wrong"}, "")
	assert.Equal(t, http.StatusUnauthorized, bad.code)
	login := r.do(http.MethodPost, sessionsPath, map[string]any{"UserName": "root", "Password": testPassword}, "")
	require.Equal(t, http.StatusCreated, login.code)
	tok, loc := login.header.Get("X-Auth-Token"), login.header.Get("Location")
	require.NotEmpty(t, tok)
	require.True(t, strings.HasPrefix(loc, sessionsPath+"/"))
	assert.Equal(t, http.StatusOK, r.do(http.MethodGet, systemPath, nil, tok).code)
	assert.EqualValues(t, 1, r.do(http.MethodGet, sessionsPath, nil, tok).body["Members@odata.count"])
	assert.Equal(t, http.StatusNoContent, r.do(http.MethodDelete, loc, nil, tok).code)
	assert.Equal(t, http.StatusUnauthorized, r.do(http.MethodGet, systemPath, nil, tok).code, "logged out")
}

func TestUnknownAndWrongMethod(t *testing.T) {
	r := newRig(t)
	assert.Equal(t, http.StatusNotFound, r.do(http.MethodGet, rootPath+"/Chassis/Nope", nil).code)
	rep := r.do(http.MethodDelete, systemPath, nil)
	assert.Equal(t, http.StatusMethodNotAllowed, rep.code)
	assert.Equal(t, "GET, PATCH", rep.header.Get("Allow"))
	assert.Equal(t, http.StatusBadRequest, r.do(http.MethodPost, resetPath, map[string]any{"ResetType": "Nmi"}).code)
}

func TestImageVersion(t *testing.T) {
	for image, want := range map[string]string{
		"http://images.lab/rackroll-4.2.0.iso":          "4.2.0",
		"https://h/a/b/rackroll-4.2.0-rc.1.iso?sig=abc": "4.2.0-rc.1",
		"nfs://h/export/rackroll-5.0.iso":               "5.0",
		"http://images.lab/ubuntu-22.04.iso":            "",
		"http://images.lab/rackroll-.iso":               "",
	} {
		assert.Equal(t, want, imageVersion(image), image)
	}
}

func TestFaultKindsOutsideTheBMCAreIgnored(t *testing.T) {
	r := newRig(t)
	r.b.SetFault("node-not-ready", 1)
	r.b.ClearFault("bmc-5xx")
	assert.Zero(t, r.count(events.Fault))
}

// The transport faults need a real server.
func serve(t *testing.T, r *rig) string {
	t.Helper()
	url, err := r.b.Serve("")
	require.NoError(t, err)
	return url
}

func get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+systemPath, nil)
	req.SetBasicAuth("root", testPassword)
	return c.Do(req)
}

func TestTransportFaults(t *testing.T) {
	r := newRig(t)
	url := serve(t, r)
	client := &http.Client{Timeout: 30 * time.Second} // only so a bug cannot hang the test

	resp, err := get(context.Background(), client, url)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	r.b.SetFault(faults.BMC5xx, 1)
	resp, err = get(context.Background(), client, url)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.GreaterOrEqual(t, resp.StatusCode, 500)
	assert.Contains(t, string(body), `"error"`)
	r.b.ClearFault(faults.BMC5xx)

	r.b.SetFault(faults.BMCUnreachable, 0)
	_, err = get(context.Background(), client, url)
	assert.Error(t, err, "connection dropped without an answer")
	r.b.ClearFault(faults.BMCUnreachable)

	r.b.SetFault(faults.BMCTimeout, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err = get(ctx, client, url)
	assert.ErrorIs(t, err, context.Canceled, "the request hangs until the client gives up")
}

func TestCloseAbortsHangingRequests(t *testing.T) {
	r := newRig(t)
	url := serve(t, r)
	r.b.SetFault(faults.BMCTimeout, 1)
	client := &http.Client{Timeout: time.Minute} // generous: only guards against a hang
	errc := make(chan error, 1)
	go func() {
		_, err := get(context.Background(), client, url)
		errc <- err
	}()
	require.Eventually(t, func() bool {
		r.b.mu.Lock()
		defer r.b.mu.Unlock()
		return r.b.hanging == 1
	}, 30*time.Second, time.Millisecond, "the request never reached the BMC")
	r.b.Close()
	err := <-errc
	assert.Error(t, err)
	assert.False(t, errors.Is(err, context.DeadlineExceeded), "Close, not the client timeout, ended it: %v", err)
}
