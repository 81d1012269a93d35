package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/breakglass"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// An operator resumes a cluster the storm guard set Degraded: the guard
// leaves it Running while the storm is the one resumed from, and sets it
// Degraded again once the storm changes (a third KCP falls sick).
func TestMonitorStormRespectsResume(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	r.nodes["rack1-mgmt1"].ready = model.ReadyUnknown
	r.nodes["rack2-mgmt1"].ready = model.ReadyUnknown
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(10 * time.Minute), NodeUnknownFor: dur(30 * time.Minute)})
	var before, afterResume string
	m.after(10*time.Minute+time.Second, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		before = r.st.Cluster.DetailedStatus
		res, _ := breakglass.Resume(r.st, api.ResumeRequest{Reason: "INC-5: known", By: "dan"}, m.t0)
		r.st.Cluster.DetailedStatus, r.st.Cluster.DetailedStatusMessage = res.Status, res.Message
	})
	m.after(30*time.Minute+time.Second, func() {
		r.mu.Lock()
		afterResume = r.st.Cluster.DetailedStatus
		r.mu.Unlock()
		r.set("rack3-mgmt1", func(n *fakeNode) { n.ready = model.ReadyUnknown })
	})
	m.run(40*time.Minute + time.Second)
	require.Equal(t, model.ClusterDegraded, before)
	require.Equal(t, model.ClusterRunning, afterResume, "the same storm leaves the resumed cluster Running")
	require.Equal(t, model.ClusterDegraded, r.st.Cluster.DetailedStatus, "a changed storm is shown again")
	require.Contains(t, r.st.Cluster.DetailedStatusMessage, "3 control-plane nodes unhealthy")
}
