package reliability

import (
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	enumspb "go.temporal.io/api/enums/v1"
)

// fastRemediation sets the inventory's remediation clocks in seconds, as
// test/controlplane/remediation_test.go does, save the reprovision's limit.
// A kill that lands in a call that answers at once (Steps.short: no
// heartbeat) stalls it for the call's whole limit, a minute by default; a
// loaded machine (make test runs beside other suites) then took the
// reprovision past 45 s and the ladder failed it before the lab's reimage
// began. Two minutes holds that stall and the reimage: the kills, not the
// limit, are the test. The provisioning limit stays above it.
func fastRemediation(inv *model.Inventory) {
	sec := func(d time.Duration) model.Duration { return model.Duration(d) }
	inv.Remediation = &model.RemediationSpec{Interval: sec(time.Second), NodeUnknownFor: sec(3 * time.Second),
		ReadOnlyRootFilesystemFor: sec(3 * time.Second), ProvisioningTimeout: sec(3 * time.Minute),
		RebootTimeout: sec(10 * time.Second), ReprovisionTimeout: sec(2 * time.Minute), MaxConcurrentCompute: 5}
	inv.Lab = nil
}

// A compute node's root filesystem turns read-only; the health monitor
// starts a remediation (one reprovision) and the worker is killed a few
// times while it runs. Then a user reimage (BMMActionWorkflow) of another
// server, with kills too. Each machine is reimaged exactly once and the
// operations end as they would without the kills.
//
// The reduced size kills twice per operation (at least once must land while
// it runs), the full size four times (at least three). A kill that lands
// while an activity is in flight stalls the operation until the activity's
// heartbeat (or start-to-close) timeout, up to a minute, and a workflow
// task sent to the killed worker waits up to wiring.StickyWait for the new
// one: the kills come close together so their stalls overlap, and each
// operation costs about a minute more than without kills, whatever the
// size.
func TestCrashDuringRemediationAndReimage(t *testing.T) {
	t.Parallel()
	kills, goal := 2, 1
	if full {
		kills, goal = 4, 3
	}
	minGap, maxGap := 300*time.Millisecond, 2*time.Second
	// The lab's reimage lasts longer than maxGap, so the first kill always
	// lands during the remediation (it lasts about two seconds at the
	// default timings, too close to maxGap), mostly in its reimage.
	timings := lab.FastTimings()
	timings.Reimage = model.Duration(2 * time.Second)
	s := startSite(t, "../../examples/two-rack.yaml", siteOptions{Mutate: fastRemediation, Timings: timings})
	ctx := s.Context(15 * time.Minute)
	s.start(ctx, api.MonitorID(s.Cluster), api.HealthMonitorWorkflowName, api.MonitorInput{Cluster: s.Cluster})
	rng := rngFor(t)
	before := s.Lab.ReimageCounts()
	is := siteOf(t, s)

	// Remediation.
	const sick = "rack1-c1"
	if err := s.Lab.SetFault(sick, "readonly-rootfs", 0, false); err != nil {
		t.Fatal(err)
	}
	// The reprovision gives the node a fresh filesystem: clear the fault
	// once the reimage runs, or the monitor would see it again afterwards.
	go func() {
		for ctx.Err() == nil && !s.Lab.Machine(sick).BMC.State().Reimaging {
			time.Sleep(50 * time.Millisecond)
		}
		s.Lab.SetFault(sick, "readonly-rootfs", 0, true)
	}()
	remID := api.RemediationID(s.Cluster, sick)
	s.Eventually(2*time.Minute, "the remediation of "+sick+" started", func() bool {
		_, err := s.Client.DescribeWorkflowExecution(ctx, remID, "")
		return err == nil
	})
	began := time.Now()
	c := startChaos(s.proc, rng, kills, minGap, maxGap, func() bool { return s.running(remID) })
	closed := s.waitClosed(ctx, remID)
	n := c.stop()
	t.Logf("remediation with %d kills took %v", n, time.Since(began).Round(100*time.Millisecond))
	var rs api.RemediationStatus
	if err := s.Client.GetWorkflow(ctx, remID, "").Get(ctx, &rs); err != nil {
		t.Errorf("remediation of %s: %v", sick, err)
	}
	const rsc = "crash/remediation"
	check(t, rsc+": worker kills", fmt.Sprintf("≥ %d", goal), fmt.Sprint(n), n >= goal)
	ok := closed == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED && rs.Recovered
	if !ok {
		t.Logf("remediation: %v, outcome %q", closed, rs.Outcome)
	}
	checkBool(t, rsc+": remediation recovered the server", ok)
	got := s.Lab.ReimageCounts()[sick] - before[sick]
	check(t, rsc+": "+sick+" reimaged exactly once", "1", fmt.Sprint(got), got == 1)

	// User reimage.
	const target = "rack2-c2"
	actID := api.ActionID(s.Cluster, target, 1)
	s.start(ctx, actID, api.BMMActionWorkflowName, api.ActionInput{Cluster: s.Cluster, BMM: target,
		Action: api.ActionReimage, EvacuateTimeout: 15 * time.Second})
	began = time.Now()
	c = startChaos(s.proc, rng, kills, minGap, maxGap, func() bool { return s.running(actID) })
	closed = s.waitClosed(ctx, actID)
	n = c.stop()
	t.Logf("user reimage with %d kills took %v", n, time.Since(began).Round(100*time.Millisecond))
	var res api.ActionResult
	err := s.Client.GetWorkflow(ctx, actID, "").Get(ctx, &res)
	const asc = "crash/user reimage"
	check(t, asc+": worker kills", fmt.Sprintf("≥ %d", goal), fmt.Sprint(n), n >= goal)
	if err != nil {
		t.Logf("reimage of %s: %v", target, err)
	}
	checkBool(t, asc+": reimage completed", closed == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED && err == nil)
	got = s.Lab.ReimageCounts()[target] - before[target]
	check(t, asc+": "+target+" reimaged exactly once", "1", fmt.Sprint(got), got == 1)

	// Nobody else was touched, every lease was released, no rule broke.
	after := s.Lab.ReimageCounts()
	var others []string
	for name, n := range after {
		if name != sick && name != target && n != before[name] {
			others = append(others, fmt.Sprintf("%s=%d", name, n-before[name]))
		}
	}
	check(t, "crash/remediation+reimage: other BMMs reimaged", "0", fmt.Sprint(len(others))+note(others), len(others) == 0)
	leases := len(s.State().Leases)
	check(t, "crash/remediation+reimage: leases left", "0", fmt.Sprint(leases), leases == 0)
	checkInvariants(t, s, "crash/remediation+reimage", invariants.WithRemediation(is, rs))
}
