package remediation

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/breakglass"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// An operator resumes a cluster the storm guard set Degraded: the guard
// leaves it Running while the storm is the one resumed from, and sets it
// Degraded again once the storm changes (a third KCP falls sick).
func TestMonitorStormRespectsResume(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-mgmt1"].Ready = model.ReadyUnknown
	r.Nodes["rack2-mgmt1"].Ready = model.ReadyUnknown
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(10 * time.Minute), NodeUnknownFor: dur(30 * time.Minute)})
	var before, afterResume string
	m.after(10*time.Minute+time.Second, func() {
		r.Mu.Lock()
		defer r.Mu.Unlock()
		before = r.St.Cluster.DetailedStatus
		res, _ := breakglass.Resume(r.St, api.ResumeRequest{Reason: "INC-5: known", By: "dan"}, m.t0)
		r.St.Cluster.DetailedStatus, r.St.Cluster.DetailedStatusMessage = res.Status, res.Message
	})
	m.after(30*time.Minute+time.Second, func() {
		r.Mu.Lock()
		afterResume = r.St.Cluster.DetailedStatus
		r.Mu.Unlock()
		r.Set("rack3-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	})
	m.run(40*time.Minute + time.Second)
	require.Equal(t, model.ClusterDegraded, before)
	require.Equal(t, model.ClusterRunning, afterResume, "the same storm leaves the resumed cluster Running")
	require.Equal(t, model.ClusterDegraded, r.St.Cluster.DetailedStatus, "a changed storm is shown again")
	require.Contains(t, r.St.Cluster.DetailedStatusMessage, "3 control-plane nodes unhealthy")
}
