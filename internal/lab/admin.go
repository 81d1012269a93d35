package lab

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/rackroll/rackroll/internal/lab/faults"
)

// FaultRequest is the admin endpoint's body for POST /faults.
type FaultRequest struct {
	BMM   string      `json:"bmm"`
	Kind  faults.Kind `json:"kind"`
	Rate  float64     `json:"rate,omitempty"`
	Clear bool        `json:"clear,omitempty"`
}

// MachineStatus is one row of GET /machines.
type MachineStatus struct {
	Name           string `json:"name"`
	Rack           string `json:"rack"`
	Role           string `json:"role"`
	BMC            string `json:"bmc"`
	Power          string `json:"power"`
	OSRunning      bool   `json:"osRunning"`
	RuntimeVersion string `json:"runtimeVersion"`
	ReimageCount   int    `json:"reimageCount"`
	Profile        string `json:"profile"`            // the vendor its BMC plays
	Unracked       bool   `json:"unracked,omitempty"` // lab.unracked, not racked yet: no BMC answers, no Node
	Sessions       int    `json:"sessions"`           // Redfish sessions open now (a leak shows here)
	// UpdateRequests counts the firmware update requests its BMC received
	// (refused or not), by the kind of package each named
	// (UpdateRequestsByKind): a test or an operator checks exactly-once.
	UpdateRequests       int            `json:"updateRequests"`
	UpdateRequestsByKind map[string]int `json:"updateRequestsByKind,omitempty"`
}

// SetFault injects (or with clear, removes) a fault on one BMM.
func (l *Lab) SetFault(bmm string, kind faults.Kind, rate float64, clear bool) error {
	m := l.machines[bmm]
	if m == nil {
		return fmt.Errorf("bmm %q is not in this lab: known BMMs are %s", bmm, strings.Join(l.names(), ", "))
	}
	if err := kind.Check(); err != nil {
		return err
	}
	if rate < 0 || rate > 1 {
		return fmt.Errorf("rate %v: allowed 0 (always) to 1", rate)
	}
	switch kind.Target() {
	case faults.BMC:
		if clear {
			m.BMC.ClearFault(kind)
		} else {
			m.BMC.SetFault(kind, rate)
		}
	case faults.Node:
		l.Sim.SetFault(bmm, kind, !clear)
	}
	return nil
}

// Status lists every BMM's simulated hardware state.
func (l *Lab) Status() []MachineStatus {
	var out []MachineStatus
	for _, m := range l.Machines() {
		out = append(out, l.status(m))
	}
	return out
}

func (l *Lab) status(m *Machine) MachineStatus {
	st := m.BMC.State()
	l.mu.Lock()
	url, unracked := m.URL, l.unracked[m.Name]
	l.mu.Unlock()
	return MachineStatus{Name: m.Name, Rack: m.Rack, Role: string(m.Role), BMC: url, Unracked: unracked,
		Power: st.Power, OSRunning: st.OSRunning, RuntimeVersion: st.RuntimeVersion, ReimageCount: st.ReimageCount,
		Profile: m.Profile, Sessions: m.BMC.Sessions(), UpdateRequests: st.UpdateRequests, UpdateRequestsByKind: m.BMC.UpdateRequestsByKind()}
}

func (l *Lab) serveAdmin(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("lab admin endpoint on %s: %w (is another lab running? pick another --admin-addr)", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /machines", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, l.Status()) })
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, l.Events.Events()) })
	mux.HandleFunc("POST /faults", func(w http.ResponseWriter, r *http.Request) {
		var req FaultRequest
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeJSON(w, 400, map[string]string{"error": "body: " + err.Error()})
			return
		}
		if err := l.SetFault(req.BMM, req.Kind, req.Rate, req.Clear); err != nil {
			writeJSON(w, 400, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, 200, req)
	})
	mux.HandleFunc("POST /rack", func(w http.ResponseWriter, r *http.Request) {
		var req RackRequest
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeJSON(w, 400, map[string]string{"error": "body: " + err.Error()})
			return
		}
		res, err := l.Rack(req.Names...)
		if err != nil {
			writeJSON(w, 400, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, 200, res)
	})
	// The site as racked now, for the operator's grown inventory.
	mux.HandleFunc("GET /inventory", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, l.OutInventory()) })
	l.admin = &http.Server{Handler: mux}
	l.AdminURL = "http://" + ln.Addr().String()
	go l.admin.Serve(ln)
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
