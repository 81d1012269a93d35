package gofishclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/require"
)

// redfishServer serves fixed Redfish documents with basic auth only (no
// SessionService) and counts the GETs: just enough of a BMC to test what
// the client reads and how it reports a refusal. The activities' tests
// drive it against vendor-shaped BMCs (package bmc's miniBMC, the lab).
type redfishServer struct {
	mu     sync.Mutex
	docs   map[string]map[string]any
	refuse map[string]int // path → status to answer, with a Redfish error body
	gets   map[string]int
	posted map[string]map[string]any // path → the last POST's JSON body
	header map[string]http.Header    // path → headers to answer with
}

// newRedfishServer serves one System, /redfish/v1/Systems/1; docs, when
// given, changes the documents before the client reads the service root.
func newRedfishServer(t *testing.T, docs ...func(map[string]map[string]any)) (*redfishServer, bmcclient.Client) {
	t.Helper()
	s := &redfishServer{refuse: map[string]int{}, gets: map[string]int{}, posted: map[string]map[string]any{},
		header: map[string]http.Header{}, docs: map[string]map[string]any{
			"/redfish/v1": {"@odata.id": "/redfish/v1", "Systems": ref("/redfish/v1/Systems"),
				"Managers": ref("/redfish/v1/Managers"), "UpdateService": ref("/redfish/v1/UpdateService")},
			"/redfish/v1/Systems": {"@odata.id": "/redfish/v1/Systems", "Members": []any{ref("/redfish/v1/Systems/1")}},
			"/redfish/v1/Systems/1": {"@odata.id": "/redfish/v1/Systems/1", "Id": "1", "PowerState": "On",
				"Actions": map[string]any{"#ComputerSystem.Reset": map[string]any{"target": "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset"}}},
		}}
	for _, f := range docs {
		f(s.docs)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := Dial(context.Background(), bmcclient.Endpoint{Address: srv.URL}, bmcclient.Credentials{Username: "root", Password: "pw"}, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return s, c
}

func ref(p string) map[string]any { return map[string]any{"@odata.id": p} }

func (s *redfishServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := strings.TrimSuffix(r.URL.Path, "/")
	s.gets[path]++
	if r.Method == http.MethodPost {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.posted[path] = body
	}
	for k, v := range s.header[path] {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	d, ok := s.docs[path]
	status := s.refuse[path]
	if status == 0 && !ok {
		status = http.StatusNotFound
	}
	if status != 0 {
		w.WriteHeader(status)
		d = map[string]any{"error": map[string]any{"code": "Base.1.8.GeneralError", "message": "refused " + path}}
	}
	_ = json.NewEncoder(w).Encode(d)
}

func (s *redfishServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets[path]
}
