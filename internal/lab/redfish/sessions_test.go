package redfish

import (
	"net/http"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionLifecycleIsLogged(t *testing.T) {
	r := newRig(t, profile("idrac9"))
	login := r.do(http.MethodPost, sessionsPath, map[string]any{"UserName": "root", "Password": testPassword}, "")
	require.Equal(t, http.StatusCreated, login.code)
	token, loc := login.header.Get("X-Auth-Token"), login.header.Get("Location")
	require.NotEmpty(t, token)
	assert.Equal(t, sessionsPath+"/1", loc)
	assert.Nil(t, login.body["Password"])
	assert.Equal(t, 1, r.b.Sessions())
	assert.Equal(t, http.StatusOK, r.do(http.MethodGet, systemPath, nil, token).code)

	assert.Equal(t, http.StatusNoContent, r.do(http.MethodDelete, loc, nil, token).code)
	assert.Equal(t, http.StatusUnauthorized, r.do(http.MethodGet, systemPath, nil, token).code, "logged out")
	assert.Zero(t, r.b.Sessions())
	assert.Equal(t, 1, r.count(events.SessionCreate))
	assert.Equal(t, 1, r.count(events.SessionDelete))
	del := r.log.Events()[len(r.log.Events())-1]
	assert.Equal(t, events.SessionDelete, del.Kind)
	assert.Equal(t, "logout", del.Detail["reason"])
}

func TestSessionLimit(t *testing.T) {
	for _, tc := range []struct {
		profile       string
		limit, status int
		id            string
	}{
		{"idrac9", 8, http.StatusServiceUnavailable, "IDRAC.2.8.RAC0218"},
		{"idrac9-slow", 4, http.StatusBadRequest, "IDRAC.2.8.RAC0218"},
		{"ilo5", 10, http.StatusServiceUnavailable, "Base.1.12.SessionLimitExceeded"},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			r := newRig(t, profile(tc.profile))
			var tokens []string
			for range tc.limit {
				tokens = append(tokens, r.login())
			}
			rep := r.do(http.MethodPost, sessionsPath, map[string]any{"UserName": "root", "Password": testPassword}, "")
			assert.Equal(t, tc.status, rep.code)
			assert.Equal(t, tc.id, field(rep.body, "error", "code"))
			assert.Equal(t, tc.limit, r.count(events.SessionCreate), "the refused login opened nothing")
			assert.Equal(t, 1, r.count(events.SessionRefused), "and was logged")

			require.Equal(t, http.StatusNoContent, r.do(http.MethodDelete, sessionsPath+"/1", nil, tokens[0]).code)
			r.login() // a logout frees a place
		})
	}
}

func TestSessionsTimeOutWhenIdle(t *testing.T) {
	r := newRig(t, profile("supermicro"))
	idle, busy := r.login(), r.login()
	for range 4 {
		r.clk.Advance(90 * time.Second)
		require.Equal(t, http.StatusOK, r.do(http.MethodGet, rootPath+"/Systems", nil, busy).code)
	}
	// Six minutes on: the idle session passed Supermicro's five, the busy
	// one was used 90 s ago.
	assert.Equal(t, http.StatusUnauthorized, r.do(http.MethodGet, rootPath+"/Systems", nil, idle).code)
	assert.Equal(t, http.StatusOK, r.do(http.MethodGet, rootPath+"/Systems", nil, busy).code)
	var reasons []any
	for _, e := range r.log.Events() {
		if e.Kind == events.SessionDelete {
			reasons = append(reasons, e.Detail["reason"])
		}
	}
	assert.Equal(t, []any{"timeout"}, reasons)
}

func TestBasicAuthOffOnIdrac10(t *testing.T) {
	r := newRig(t, profile("idrac10"))
	rep := r.do(http.MethodGet, systemPath, nil) // basic auth, right password
	assert.Equal(t, http.StatusUnauthorized, rep.code)
	assert.Contains(t, field(rep.body, "error", "message"), "Basic authentication is disabled")
	assert.Empty(t, rep.header.Get("WWW-Authenticate"), "basic auth is not advertised")
	assert.Equal(t, http.StatusOK, r.do(http.MethodGet, systemPath, nil, r.login()).code)

	on := newRig(t, profile("idrac9"))
	assert.Equal(t, http.StatusOK, on.do(http.MethodGet, systemPath, nil).code, "iDRAC9 still takes basic auth")
}
