package redfish

import (
	"net/http"
)

// login opens a session with the test credentials and returns its token.
func (r *rig) login() string {
	r.t.Helper()
	rep := r.do(http.MethodPost, sessionsPath, map[string]any{"UserName": "root", "Password": testPassword}, "")
	if rep.code != http.StatusCreated {
		r.t.Fatalf("login: %d %v", rep.code, rep.body)
	}
	return rep.header.Get("X-Auth-Token")
}
