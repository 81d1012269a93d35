package e2e

import (
	"context"
	"slices"
	"time"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
)

// SiteWorker is the worker as a site runs it: no shortened BMC power-on
// wait, so only the site's limits bound a step (Start's default shortens it).
var SiteWorker = &wiring.Options{PollInterval: 200 * time.Millisecond}

// FastRemediation sets the inventory's remediation clocks in seconds. It
// drops the example's lab faults and detaches etcd: a two-rack site's only
// KCP failing over while off would take the lab's API (its one etcd member)
// down with it, and with it every step of the failover.
func FastRemediation(inv *model.Inventory) {
	s := func(d time.Duration) model.Duration { return model.Duration(d) }
	inv.Remediation = &model.RemediationSpec{Interval: s(time.Second), NodeUnknownFor: s(3 * time.Second),
		ReadOnlyRootFilesystemFor: s(3 * time.Second), ProvisioningTimeout: s(time.Minute),
		RebootTimeout: s(10 * time.Second), ReprovisionTimeout: s(20 * time.Second), MaxConcurrentCompute: 5}
	inv.Lab = []byte(`{"etcdDetached": true}`)
}

// KeepComputes trims each rack to its first n compute servers (and those
// keep says to keep, when keep is set): a test whose subject is the
// control plane or a few chosen servers runs the same phases on a site a
// third the size. Management servers, and so the placement of KCPs and
// spares, are untouched.
func KeepComputes(inv *model.Inventory, n int, keep func(name string) bool) {
	for i, r := range inv.Racks {
		kept := 0
		inv.Racks[i].Servers = slices.DeleteFunc(r.Servers, func(s model.ServerSpec) bool {
			if s.Role != model.RoleCompute {
				return false
			}
			if kept < n || (keep != nil && keep(s.Name)) {
				kept++
				return false
			}
			return true
		})
	}
}

// StartMonitor starts the health monitor of e's cluster.
func (e *Env) StartMonitor() *Env {
	e.Run(context.Background(), api.MonitorID(e.Cluster), api.HealthMonitorWorkflowName, api.MonitorInput{Cluster: e.Cluster})
	return e
}

// BMM is the ledger's record of the named BMM, read now.
func (e *Env) BMM(name string) model.BMM {
	e.T.Helper()
	c := e.State().Cluster
	b, ok := c.BMM(name)
	require.True(e.T, ok, name)
	return *b
}

// Remediation waits for the monitor to start bmm's remediation and returns
// its result.
func (e *Env) Remediation(ctx context.Context, bmm string) api.RemediationStatus {
	e.Eventually(time.Minute, "the remediation of "+bmm+" started", func() bool { return e.RemediationStarted(ctx, bmm) })
	var rs api.RemediationStatus
	require.NoError(e.T, e.Client.GetWorkflow(ctx, api.RemediationID(e.Cluster, bmm), "").Get(ctx, &rs))
	return rs
}

// RemediationStarted reports whether the monitor started bmm's remediation.
func (e *Env) RemediationStarted(ctx context.Context, bmm string) bool {
	_, err := e.Client.DescribeWorkflowExecution(ctx, api.RemediationID(e.Cluster, bmm), "")
	return err == nil
}

// RequireMembersAreActiveKCPs compares etcd's member list, read now, with
// the ledger's active KCPs: the same names, all healthy voters.
func (e *Env) RequireMembersAreActiveKCPs(ctx context.Context) {
	e.T.Helper()
	var kcps []string
	for _, b := range e.State().Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			kcps = append(kcps, b.NodeName)
		}
	}
	var o etcd.Observation
	e.Eventually(time.Minute, "every member a healthy voter", func() bool {
		var err error
		o, err = (&etcd.Activities{}).ObserveEtcd(ctx, etcd.ObserveInput{Spec: *e.Lab.EtcdSpec()})
		if err != nil || o.Err != "" {
			return false
		}
		for _, m := range o.Members {
			if !m.Healthy || m.Learner {
				return false
			}
		}
		return true
	})
	var names []string
	for _, m := range o.Members {
		names = append(names, m.Name)
	}
	require.ElementsMatch(e.T, kcps, names, "etcd's members are the active KCPs")
}

// KillServer makes bmm a dead machine: its node goes Unknown and its BMC
// never powers it on again, so a reboot cannot bring it back.
func (e *Env) KillServer(bmm string) {
	e.T.Helper()
	require.NoError(e.T, e.Lab.SetFault(bmm, faults.PowerOnFails, 0, false))
	require.NoError(e.T, e.Lab.SetFault(bmm, faults.NodeUnknown, 0, false))
}

// FailedOver waits for the monitor's remediation of kcp to end in a
// failover and returns both results; the failover promoted a server and
// reported no error.
func (e *Env) FailedOver(ctx context.Context, kcp string) (api.RemediationStatus, api.FailoverStatus) {
	e.T.Helper()
	rs := e.Remediation(ctx, kcp)
	require.Contains(e.T, rs.Outcome, "failed over", rs.Outcome)
	var fs api.FailoverStatus
	require.NoError(e.T, e.Client.GetWorkflow(ctx, api.FailoverID(e.Cluster), "").Get(ctx, &fs))
	require.Empty(e.T, fs.Error)
	require.True(e.T, fs.Promoted)
	return rs, fs
}
