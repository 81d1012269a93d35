package cluster

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ClusterWorkflow is the long-running ledger of one cluster (id
// cluster:<cluster>). It is the single writer of each BMM's roles, version,
// statuses and of the disruption leases. Leases are granted through an
// Update whose validator applies the KCP rule, so a refusal is synchronous
// and leaves no trace in history.
func ClusterWorkflow(ctx workflow.Context, in api.ClusterInput) error {
	if in.Carry != nil {
		kernel.TakeCarry(ctx, "ClusterWorkflow", in.CarryHeader)
	}
	in, err := in.Unpacked()
	if err != nil {
		panic(err) // fails the task, not the run: nothing of it is lost
	}
	l := &clusterLedger{in: in}
	if in.Carry != nil {
		l.st = *in.Carry
	} else {
		l.st = api.ClusterState{Cluster: model.Cluster{Name: in.Inventory.Cluster, DetailedStatus: model.ClusterRunning}}
	}
	l.marksAreState(ctx)
	l.registerStamped(ctx, in.Inventory, in.Placement, changeRegisterReplans)
	if err := l.handlers(ctx); err != nil {
		return err
	}
	kernel.TakeWakes(ctx) // an idle ledger's task on which it moves
	return l.run(ctx)
}

type clusterLedger struct {
	in api.ClusterInput
	st api.ClusterState
	// marks: the Unhealthy mark is state no status write erases
	// (GetVersion unhealthy-mark-state); before, it was the message.
	marks bool
}

func (l *clusterLedger) handlers(ctx workflow.Context) error {
	// The queries show the state redacted: no output, and no history of
	// a workflow that reads the ledger, carries a key (docs/keysets.md).
	if err := workflow.SetQueryHandler(ctx, api.QueryState, func() (api.ClusterState, error) { return l.st.Redacted(), nil }); err != nil {
		return err
	}
	// One BMM's view: what a server's workflow needs, without the whole
	// site in its history (a 2,000-server ledger is megabytes).
	if err := workflow.SetQueryHandler(ctx, api.QueryBMM, func(name string) (api.ClusterState, error) {
		return l.st.Redacted().ForBMM(name)
	}); err != nil {
		return err
	}
	// A page of BMMs: what a run walking every BMM reads at a time.
	if err := workflow.SetQueryHandler(ctx, api.QueryPage, func(r api.PageRequest) (api.PageResult, error) {
		st, total := l.st.Redacted().Page(r.From, r.N)
		return api.PageResult{State: st, Total: total}, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateAcquireLease, l.acquire,
		workflow.UpdateHandlerOptions{Validator: l.validateAcquire}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandler(ctx, api.UpdateReleaseLease, func(ctx workflow.Context, r api.ReleaseRequest) error {
		l.st.Leases = lease.Release(l.st.Leases, r.BMM, r.Holder)
		l.touch(ctx)
		return nil
	}); err != nil {
		return err
	}
	if err := l.keysetHandlers(ctx); err != nil {
		return err
	}
	if err := l.breakGlassHandlers(ctx); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateRecordBMM, l.record,
		workflow.UpdateHandlerOptions{Validator: l.validateRecord}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateRegister, func(ctx workflow.Context, r api.RegisterRequest) (api.ClusterState, error) {
		l.registerStamped(ctx, r.Inventory, r.Placement, registerUpdateChangeID(ctx))
		return l.st.Redacted(), nil
	}, workflow.UpdateHandlerOptions{Validator: l.validateRegister}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateClusterStatus, func(ctx workflow.Context, p api.ClusterStatusPatch) error {
		l.st.Cluster.DetailedStatus, l.st.Cluster.DetailedStatusMessage = p.DetailedStatus, p.DetailedStatusMessage
		if p.RuntimeVersion != "" {
			l.st.Cluster.RuntimeVersion = p.RuntimeVersion
		}
		if p.UpgradeTarget != "" {
			l.st.UpgradeTarget = p.UpgradeTarget
		}
		if p.ClearUpgrade {
			l.st.UpgradeTarget = ""
		}
		l.touch(ctx)
		return nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, p api.ClusterStatusPatch) error {
		switch p.DetailedStatus {
		case model.ClusterRunning, model.ClusterUpdating, model.ClusterUpdatePaused, model.ClusterDegraded, model.ClusterFailed:
			return nil
		}
		return fmt.Errorf("detailedStatus %q: allowed Running, Updating, UpdatePaused, Degraded, Failed", p.DetailedStatus)
	}})
}

func (l *clusterLedger) validateAcquire(ctx workflow.Context, r lease.Request) error {
	if r.Holder == "" {
		r.Holder = api.ActionID(l.st.Cluster.Name, r.BMM, l.st.ActionSeq+1)
	}
	if err := lease.Fresh(r, workflow.Now(ctx)); err != nil {
		// Typed, so that the requester can tell "observe again" from a refusal.
		return temporal.NewApplicationError(err.Error(), lease.StaleType)
	}
	return lease.Check(l.st.Cluster, l.st.Leases, r)
}

func (l *clusterLedger) acquire(ctx workflow.Context, r lease.Request) (api.AcquireResult, error) {
	if r.Holder == "" {
		l.st.ActionSeq++
		r.Holder = api.ActionID(l.st.Cluster.Name, r.BMM, l.st.ActionSeq)
	}
	b, _ := l.st.Cluster.BMM(r.BMM)
	had, _ := lease.HeldOn(l.st.Leases, r.BMM)
	l.recordForced(ctx, r, had.Holder == r.Holder)
	l.st.Leases = lease.Grant(l.st.Leases, r, b.HasRole(model.RoleKCP), workflow.Now(ctx))
	l.touch(ctx)
	for _, x := range l.st.Leases {
		if x.BMM == r.BMM && x.Holder == r.Holder {
			return api.AcquireResult{Lease: x, Holder: r.Holder}, nil
		}
	}
	return api.AcquireResult{}, fmt.Errorf("lease on %s for %s vanished", r.BMM, r.Holder)
}

func (l *clusterLedger) validateRecord(ctx workflow.Context, p api.BMMPatch) error {
	if _, ok := l.st.Cluster.BMM(p.BMM); !ok {
		return fmt.Errorf("bmm %q is not in cluster %s", p.BMM, l.st.Cluster.Name)
	}
	for _, r := range p.Roles {
		if !r.Valid() {
			return fmt.Errorf("role %q: allowed kcp, kcp-spare, management, compute", r)
		}
	}
	return nil
}

func (l *clusterLedger) record(ctx workflow.Context, p api.BMMPatch) error {
	b, _ := l.st.Cluster.BMM(p.BMM)
	before := model.ManagedNodeLabels(*b)
	api.ApplyPatchAs(b, p, workflow.Now(ctx), l.marks)
	l.touch(ctx)
	after := model.ManagedNodeLabels(*b)
	moved := (p.Roles != nil || p.ManagementGroup != nil) && len(model.NodeLabelDrift(after, before)) > 0
	// Roles live on the node too (rackroll.io/role): the ledger writes
	// them when they move, and again when the node is seen without them
	// (a Node its kubelet registered anew has its --node-labels only), so
	// ledger and cluster never disagree for long.
	shown := !moved && p.NodeLabels != nil && len(model.NodeLabelDrift(after, p.NodeLabels)) > 0 &&
		workflow.GetVersion(ctx, changeLedgerRestoresNodeLabels, workflow.DefaultVersion, 1) != workflow.DefaultVersion
	if !moved && !shown {
		return nil
	}
	err := workflow.ExecuteActivity(kernel.OnSite(labelCtx(ctx, b.Name, l.st.Limits()), l.st.SiteTaskQueue), ka.LabelNode, b.NodeName, after).Get(ctx, nil)
	if err != nil {
		workflow.GetLogger(ctx).Warn("could not label node; the ledger keeps the new role", "bmm", b.Name, "error", err)
	}
	return nil
}

// labelCtx: a call to the site's Kubernetes API, each attempt within half
// the table's call.
func labelCtx(ctx workflow.Context, bmm string, t model.Timeouts) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: kernel.CallAttempt(ctx, t, 2),
		Summary:             "Label node of " + bmm,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2,
			MaximumInterval: 10 * time.Second, MaximumAttempts: 8},
	})
}

func (l *clusterLedger) validateRegister(ctx workflow.Context, r api.RegisterRequest) error {
	if r.Inventory.Cluster != l.st.Cluster.Name {
		return fmt.Errorf("inventory is for cluster %q, this ledger is %q", r.Inventory.Cluster, l.st.Cluster.Name)
	}
	keep := map[string]bool{}
	for _, s := range r.Inventory.Servers() {
		keep[s.Server.Name] = true
	}
	for _, x := range l.st.Leases {
		if !keep[x.BMM] {
			return fmt.Errorf("bmm %s would leave the inventory while %s (%s) holds it: wait for it to finish", x.BMM, x.Holder, x.Operation)
		}
	}
	return refuseBreakingTable(l.st.Cluster.BMMs, r.Inventory)
}

// register merges an inventory into the ledger: new BMMs join with the role
// the re-placement plan gives them (changeID versions it: joinRoles), known
// BMMs get fresh hardware facts and keep their state (roles included: a
// failover may have moved them), vanished BMMs leave.
func (l *clusterLedger) register(ctx workflow.Context, inv model.Inventory, placed []placement.Assignment, changeID string) {
	roles := map[string]placement.Assignment{}
	for _, a := range placed {
		roles[a.Name] = a
	}
	old := map[string]model.BMM{}
	for _, b := range l.st.Cluster.BMMs {
		old[b.Name] = b
	}
	// Hardware facts the inventory already had last time were maybe
	// superseded by a Replace: keep the ledger's. Facts the operator changed
	// in the inventory win.
	before := map[string]model.ServerSpec{}
	for _, ref := range l.in.Inventory.Servers() {
		before[ref.Server.Name] = ref.Server
	}
	joining := l.joinRoles(ctx, changeID, inv, roles)
	var bmms []model.BMM
	for _, ref := range inv.Servers() {
		s := ref.Server
		b, known := old[s.Name]
		prev, seen := before[s.Name]
		if !known {
			a := joining(s)
			b = model.BMM{Name: s.Name, Roles: []model.Role{a.Role}, ManagementGroup: a.ManagementGroup,
				RuntimeVersion: inv.RuntimeVersion, DetailedStatus: model.BMMProvisioned, PowerState: model.PowerOn,
				CordonStatus: model.Uncordoned, ReadyState: model.ReadyTrue}
		}
		b.Rack, b.NodeName = ref.Rack, model.NodeNameOf(s)
		if !known || !seen || prev.BMC != s.BMC {
			b.BMC = s.BMC
		}
		if !known || !seen || prev.BootMACAddress != s.BootMACAddress {
			b.BootMACAddress = s.BootMACAddress
		}
		if !known || !seen || prev.SerialNumber != s.SerialNumber {
			b.SerialNumber = s.SerialNumber
		}
		bmms = append(bmms, b)
	}
	l.st.Cluster.BMMs = bmms
	if l.st.Cluster.RuntimeVersion == "" {
		l.st.Cluster.RuntimeVersion = inv.RuntimeVersion
	}
	l.st.Kubeconfig = inv.Kubernetes.Kubeconfig
	if ref := inv.Kubernetes.KubeconfigSecretRef; ref != nil {
		l.st.Kubeconfig = "secret:" + ref.Namespace + "/" + ref.Name
	}
	if inv.Kubernetes.InCluster {
		l.st.Kubeconfig = api.KubeconfigInCluster // the worker's own pod credentials
	}
	l.st.ImageURLTemplate = inv.ImageURL("{version}")
	l.st.ImageSHA256 = inv.Images.SHA256
	l.st.Firmware = inv.Images.Firmware
	l.st.SiteTaskQueue = inv.SiteTaskQueue()
	l.st.NodeVersion = inv.Kubernetes.NodeVersion()
	l.st.ControlPlane = inv.ControlPlane
	l.st.BMCCredentials = inv.BMCCredentials
	l.st.Remediation = inv.Remediation.WithDefaults()
	l.st.Timeouts = inv.Timeouts.Resolve()
	l.in.Inventory, l.in.Placement = inv, placed
	l.touch(ctx)
}

func (l *clusterLedger) touch(ctx workflow.Context) { l.st.Updated = workflow.Now(ctx) }

// run sweeps leases whose holders are gone and continues as new when the
// history grows long, carrying every lease.
func (l *clusterLedger) run(ctx workflow.Context) error {
	sweep := l.in.LeaseSweep
	if sweep <= 0 {
		sweep = 30 * time.Second
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
	})
	// declined: this run's recorded history answered the move's GetVersion
	// with the old behaviour (never, in practice); it is not asked again.
	declined := false
	// Asked once, in the run's first task: a run recorded before the change
	// keeps the server's word for its length (runs.go).
	short := workflow.GetVersion(ctx, changeLedgerShortRuns, workflow.DefaultVersion, 1) == 1
	for {
		tooLong := func() bool {
			info := workflow.GetInfo(ctx)
			return runTooLong(info.GetCurrentHistoryLength(), info.GetContinueAsNewSuggested(), l.in.ContinueAsNewAfter, short)
		}
		// Another rackroll build is current (docs/self-upgrade.md): the
		// ledger moves to it where it trims its history. The server says so
		// only to a versioned worker's run, so recorded histories wait as
		// they did. An idle ledger learns it on its next Update or signal.
		newBuild := func() bool { return !declined && workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged() }
		wake := func() bool { return tooLong() || newBuild() }
		// Sleep until the history needs trimming, or, while leases are held,
		// until the next sweep.
		if len(l.st.Leases) == 0 {
			if err := workflow.Await(ctx, func() bool { return wake() || len(l.st.Leases) > 0 }); err != nil {
				return err
			}
		} else if _, err := workflow.AwaitWithTimeout(ctx, sweep, wake); err != nil {
			return err
		}
		moving := false
		if newBuild() {
			moving = workflow.GetVersion(ctx, changeLedgerMovesBuild, workflow.DefaultVersion, 1) == 1
			declined = !moving
		}
		if tooLong() || moving {
			// Let in-flight updates finish so none is lost, then start over.
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return err
			}
			next := l.in
			st := l.st
			st.Runs++
			next.Carry, next.CarryHeader = &st, kernel.CarryHeader(ctx)
			if workflow.GetVersion(ctx, changeLedgerPacksCarry, workflow.DefaultVersion, 1) == 1 {
				packed, err := next.Pack(selfupgrade.FormatPackedLedger)
				if err != nil {
					return err
				}
				next = packed
			}
			if moving {
				// The next run's first task goes to the target build, where it
				// is pinned from then on; without this it would stay here.
				return workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{
					InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}, ClusterWorkflow, next)
			}
			return workflow.NewContinueAsNewError(ctx, ClusterWorkflow, next)
		}
		if len(l.st.Leases) == 0 {
			continue
		}
		// Leases older than one sweep whose holder is no longer running
		// (terminated, crashed before release, never started) are released.
		now := workflow.Now(ctx)
		var check []string
		for _, h := range lease.Holders(l.st.Leases) {
			for _, x := range l.st.Leases {
				if x.Holder == h && now.Sub(x.Since) >= sweep {
					check = append(check, h)
					break
				}
			}
		}
		if len(check) == 0 {
			continue
		}
		var running map[string]bool
		if err := workflow.ExecuteActivity(kernel.Summarize(actx, fmt.Sprintf("Check the holders of %d leases", len(check))), la.HolderStates, check).Get(ctx, &running); err != nil {
			workflow.GetLogger(ctx).Warn("lease sweep failed; will retry", "error", err)
			continue
		}
		for _, h := range check {
			if !running[h] {
				workflow.GetLogger(ctx).Info("releasing leases of a holder that is no longer running", "holder", h)
				l.st.Leases = lease.Release(l.st.Leases, "", h)
				l.touch(ctx)
			}
		}
	}
}
