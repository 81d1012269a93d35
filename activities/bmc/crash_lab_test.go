package bmc

import (
	"cmp"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
)

// crashingProxy stands between the activity and the lab's BMC. When the
// reset POST passes it forwards it (the BMC acts and counts it), keeps the
// last heartbeat the server had at that moment, and from then on drops
// every connection: the worker died with the POST in flight.
type crashingProxy struct {
	at      string // the path suffix of the request that dies (default the reset)
	mu      sync.Mutex
	last    progress // the last heartbeat recorded
	atReset *progress
}

func (p *crashingProxy) heartbeat(_ *activity.Info, d converter.EncodedValues) {
	var pr progress
	if d.Get(&pr) == nil {
		p.mu.Lock()
		p.last = pr
		p.mu.Unlock()
	}
}

func (p *crashingProxy) start(t *testing.T, target string) string {
	u, err := url.Parse(target)
	require.NoError(t, err)
	fwd := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		dead := p.atReset != nil
		p.mu.Unlock()
		if !dead {
			if !strings.HasSuffix(r.URL.Path, cmp.Or(p.at, "ComputerSystem.Reset")) {
				fwd.ServeHTTP(w, r)
				return
			}
			fwd.ServeHTTP(httptest.NewRecorder(), r) // the BMC acts; its answer never returns
			p.mu.Lock()
			snap := p.last
			p.atReset = &snap
			p.mu.Unlock()
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A worker killed after it recorded ResetIssued and before the reset POST
// returned is resumed, from the heartbeat the server kept, without a
// second reset: the lab counts one.
func TestLabKilledDuringTheResetPOSTDoesNotResetTwice(t *testing.T) {
	image := "http://images.lab/rackroll-4.2.0.iso"
	for _, tc := range []struct {
		name string
		run  func(a *Activities, ep Endpoint, env *testsuite.TestActivityEnvironment) error
	}{
		{"restart", func(a *Activities, ep Endpoint, env *testsuite.TestActivityEnvironment) error {
			_, err := env.ExecuteActivity(a.Restart, ep)
			return err
		}},
		{"reimage", func(a *Activities, ep Endpoint, env *testsuite.TestActivityEnvironment) error {
			_, err := env.ExecuteActivity(a.Reimage, ReimageInput{Endpoint: ep, ImageURL: image, Version: "4.2.0"})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLab(t)
			l.a.Attempts = 2
			var p crashingProxy
			dying := l.ep
			dying.Address = p.start(t, l.ep.Address)
			l.env.SetOnActivityHeartbeatListener(p.heartbeat)
			require.Error(t, tc.run(l.a, dying, l.env), "the first attempt's worker died")
			require.NotNil(t, p.atReset, "the reset POST went out")
			assert.True(t, p.atReset.ResetIssued, "recorded before the POST")
			assert.Equal(t, 1, l.count(events.Reset))

			var suite testsuite.WorkflowTestSuite
			retry := suite.NewTestActivityEnvironment()
			retry.RegisterActivity(l.a)
			retry.SetHeartbeatDetails(*p.atReset)
			require.NoError(t, tc.run(l.a, l.ep, retry))
			assert.Equal(t, 1, l.count(events.Reset), "the retry sent no second reset")
		})
	}
}
