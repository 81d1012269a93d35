package sites

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/model"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// Followed is a site the fleet follows: the upgrade run it started.
type Followed struct {
	Cluster string `json:"cluster"`
	Target  string `json:"target"` // the rollout's version
}

// WatchInput reads the followed sites until a verdict differs from Known,
// or For has passed, reading every Every.
type WatchInput struct {
	Sites            []Followed      `json:"sites"`
	Known            []fleet.Reading `json:"known"`
	Every            time.Duration   `json:"every"`
	For              time.Duration   `json:"for"`
	UnreachableAfter time.Duration   `json:"unreachableAfter"`
}

// WatchSites returns the sites' readings once one differs from what the
// fleet knows, or after in.For: a long read, heartbeating, so that the
// fleet's history grows with what changes, not with time. A settled site
// is read less often (due).
func (a *Activities) WatchSites(ctx context.Context, in WatchInput) ([]fleet.Reading, error) {
	known := map[string]fleet.Reading{}
	for _, r := range in.Known {
		known[r.Cluster] = r
	}
	deadline := time.Now().Add(in.For)
	var out []fleet.Reading
	read := map[string]time.Time{} // when each site was last read
	for {
		out = a.read(ctx, in, known, out, read)
		changed := false
		for _, r := range out {
			changed = changed || !r.Same(known[r.Cluster])
		}
		if changed || !time.Now().Add(in.Every).Before(deadline) {
			if len(read) > 0 && stale(in, read) {
				// What the fleet acts on (a wave's start) is read now:
				// a settled site kept from an earlier read is read again.
				out = a.read(ctx, in, known, nil, map[string]time.Time{})
			}
			return out, nil
		}
		heartbeat(ctx)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(in.Every):
		}
	}
}

// SettledEvery is how often a settled site is read (due).
const SettledEvery = 30 * time.Second

// stale: some site's reading was kept, not read, in the last read.
func stale(in WatchInput, read map[string]time.Time) bool {
	var last time.Time
	for _, t := range read {
		if t.After(last) {
			last = t
		}
	}
	for _, s := range in.Sites {
		if read[s.Cluster].Before(last) {
			return true
		}
	}
	return false
}

// due: the site whose last reading is r, read at last (zero: never),
// is to be read at now. A site whose upgrade is done (succeeded, or at
// the target already) changes its verdict only when its health monitor
// reports a storm, its ledger stops answering, or an upgrade runs there
// again; seen within SettledEvery, each halts the rollout as well, so it
// is read that often, not every read (a watch under 30 s) — in a fleet's
// last waves most sites are settled, and each read is three calls to the
// Temporal server, one of them a query its ledger answers. Before the
// watch returns, every site is read (stale).
func due(r fleet.Reading, last, now time.Time, every time.Duration) bool {
	if last.IsZero() {
		return true
	}
	if r.Verdict == fleet.Succeeded || r.Verdict == fleet.Current {
		return now.Sub(last) >= max(every, SettledEvery)
	}
	return true
}

// read reads every site that is due (each, the first time); the others
// keep their reading from prev.
func (a *Activities) read(ctx context.Context, in WatchInput, known map[string]fleet.Reading, prev []fleet.Reading, read map[string]time.Time) []fleet.Reading {
	out := make([]fleet.Reading, len(in.Sites))
	now := time.Now()
	var todo []int
	for i, s := range in.Sites {
		if i < len(prev) && !due(prev[i], read[s.Cluster], now, in.Every) {
			out[i] = prev[i]
			continue
		}
		read[s.Cluster] = now
		todo = append(todo, i)
	}
	each(len(todo), func(j int) {
		i := todo[j]
		s := in.Sites[i]
		k := known[s.Cluster]
		o, silentSince := a.observe(ctx, s, k.SilentSince)
		r := fleet.Judge(o, in.UnreachableAfter)
		if o.LedgerError != "" && k.Verdict != "" && time.Since(silentSince) < in.UnreachableAfter {
			// A ledger busy with its servers' Updates may answer a read
			// late (the fleet benchmark: three sites of 512 servers on two
			// cores): like a queue with no poller, it is unreachable only
			// after UnreachableAfter of failed reads; until then the
			// site keeps its verdict.
			r = fleet.Reading{Verdict: k.Verdict, Detail: k.Detail}
		}
		r.Cluster, r.SilentSince = s.Cluster, silentSince
		out[i] = r
	})
	return out
}

// observe is what one site shows: its latest upgrade run (the fleet's, or
// one run again by hand to the same target: either brings it there), the
// ledger's status and version, and how long no worker polled the site's
// task queue — silentSince, when it lists no poller, since when.
func (a *Activities) observe(ctx context.Context, s Followed, silentSince time.Time) (o fleet.Observation, _ time.Time) {
	st, err := a.header(ctx, s.Cluster)
	if err != nil {
		o.LedgerError = err.Error()
		return o, silentFrom(silentSince)
	}
	o.ClusterStatus, o.ClusterMessage = st.Cluster.DetailedStatus, st.Cluster.DetailedStatusMessage
	o.WorkerSilentFor, silentSince = a.silentFor(ctx, siteQueue(st), silentSince)
	d, err := a.Client.DescribeWorkflowExecution(ctx, api.UpgradeID(s.Cluster), "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return o, silentSince // no upgrade of the site at all: Run stays ""
	case err != nil:
		o.LedgerError = "its upgrade could not be described: " + err.Error()
		return o, silentFrom(silentSince)
	}
	o.Run = runStatus(d.GetWorkflowExecutionInfo().GetStatus())
	o.AtTarget = st.Cluster.RuntimeVersion == s.Target
	o.OtherTarget = st.UpgradeTarget != "" && st.UpgradeTarget != s.Target
	if o.Run == "Running" && st.Cluster.DetailedStatus == model.ClusterUpdatePaused {
		if err := a.readPause(ctx, s.Cluster, &o); err != nil {
			// Which pause it is is unknown: judged as a silence, not
			// as a threshold's pause.
			o.LedgerError = "its upgrade's status could not be read: " + err.Error()
			return o, silentFrom(silentSince)
		}
	}
	return o, silentSince
}

// readPause reads the running upgrade's status to tell a pause its
// strategy made (a rack done under PauseAfterRack) from one a threshold,
// the canary or the capacity guard made. Only while paused: the status
// names every server.
func (a *Activities) readPause(ctx context.Context, cluster string, o *fleet.Observation) error {
	o.Paused = true
	v, err := a.Client.QueryWorkflow(ctx, api.UpgradeID(cluster), "", api.QueryStatus)
	if err != nil {
		return err
	}
	var st api.UpgradeStatus
	if err := v.Get(&st); err != nil {
		return err
	}
	o.PauseByStrategy = true
	for _, u := range append(append([]api.UnitStatus{st.ControlPlane}, st.ManagementGroups...), st.Racks...) {
		if u.State == api.StatePaused {
			o.PauseByStrategy, o.PausedAt = false, u.Name
		}
	}
	o.PauseMessage = st.DetailedStatusMessage
	return nil
}

// silentFor is how long no worker polled queue (its activities: the site
// worker's, or the central one's for a site without its own queue), by the
// pollers' last access the server lists. A queue that lists none at all —
// a worker gone, or a server just restarted, which lists none until the
// workers poll again — is silent since the first read that saw none
// (since, or now), which it returns for the next read; zero when it lists
// one.
func (a *Activities) silentFor(ctx context.Context, queue string, since time.Time) (time.Duration, time.Time) {
	resp, err := a.Client.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
		Namespace:     cmp.Or(a.Namespace, "default"),
		TaskQueue:     &taskqueuepb.TaskQueue{Name: queue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
		TaskQueueType: enumspb.TASK_QUEUE_TYPE_ACTIVITY,
	})
	if err != nil {
		return 0, since // not known: the ledger's answer decides
	}
	var last time.Time
	for _, p := range resp.GetPollers() {
		if t := p.GetLastAccessTime().AsTime(); t.After(last) {
			last = t
		}
	}
	if !last.IsZero() {
		return max(time.Since(last), 0), time.Time{}
	}
	if since.IsZero() {
		since = time.Now()
	}
	return time.Since(since), since
}

func runStatus(s enumspb.WorkflowExecutionStatus) string {
	switch s {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "Running"
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return "Completed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return "Failed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return "Canceled"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return "Terminated"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return "TimedOut"
	}
	return "Running"
}

// silentFrom is since when a site has not answered: since, or now at the
// first read that failed.
func silentFrom(since time.Time) time.Time {
	if since.IsZero() {
		return time.Now()
	}
	return since
}
