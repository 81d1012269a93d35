package keysets

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// pageSize is how many BMMs a keyset run reads at a time (ReadPage): a
// page's payload is a few hundred bytes a BMM, so a run's history holds
// no read that grows with the site (docs/keysets.md#size).
const pageSize = 256

// passHistory is the history length at which a run's pass, between two
// waves, continues as new and the next run goes on from the next BMM
// (api.KeysetResume): a pass over 2,048 BMCs is some 8,000 events, a
// run's history stays near this whatever the site's size.
const passHistory = 2000

// pages walks the cluster's BMMs a page at a time from a position; a run
// recorded before changePages read the whole ledger once, and walks that.
type pages struct {
	led   kernel.LedgerOf
	paged bool
	total int // the BMM count at the first read
	from  int // the position of the first page's first BMM
}

// firstPage reads the ledger's page at from (or, before changePages, the
// whole ledger): its keysets decide what the run does.
func firstPage(ctx workflow.Context, led kernel.LedgerOf, from int) (pages, api.ClusterState, error) {
	p := pages{led: led, paged: workflow.GetVersion(ctx, changePages, workflow.DefaultVersion, 1) == 1}
	if !p.paged {
		cs, err := led.Read(ctx)
		p.total = len(cs.Cluster.BMMs)
		return p, cs, err
	}
	r, err := led.ReadPage(ctx, from, pageSize)
	p.total, p.from = r.Total, from
	return p, r.State, err
}

// each calls fn with first, then with each page after it, read when the
// one before is done, with the position of the page's first BMM; an error
// of fn (a continue-as-new among them) ends the walk. A page is read by
// position: a BMM registered meanwhile may be met by the next run only, as
// when the list was read once.
func (p pages) each(ctx workflow.Context, first api.ClusterState, fn func(page api.ClusterState, at int) error) error {
	page := first
	for from := p.from; ; {
		if err := fn(page, from); err != nil {
			return err
		}
		from += len(page.Cluster.BMMs)
		if !p.paged || len(page.Cluster.BMMs) == 0 || from >= p.total {
			return nil
		}
		r, err := p.led.ReadPage(ctx, from, pageSize)
		if err != nil {
			return err
		}
		page = r.State
	}
}

// breakPass says, between two waves, whether the pass goes on in a new
// run: when the run's history has grown to passHistory events, or when a
// new rackroll build is current (move: the next run goes to it; nothing
// of the run is in flight between waves, so it need not wait for the
// pass's end, which may be minutes behind a node that is down). Asked
// only then: a recorded history shorter than that, on one build, never
// asks.
func breakPass(ctx workflow.Context) (stop, move bool) {
	info := workflow.GetInfo(ctx)
	move = info.GetTargetWorkerDeploymentVersionChanged()
	if !move && info.GetCurrentHistoryLength() < passHistory {
		return false, false
	}
	if workflow.GetVersion(ctx, changePassContinues, workflow.DefaultVersion, 1) != 1 {
		return false, false
	}
	return true, move
}

// resumed is where a run's pass starts: in.Resume's position and counts
// when it applies the version the run before applied (version, or the
// nodes run's digest), else the first BMM.
func resumed(in api.KeysetInput, version api.KeysetResume) (int, api.KeysetResult) {
	r := in.Resume
	if r == nil || !r.Version.Equal(version.Version) || r.Digest != version.Digest || r.Removing != version.Removing {
		return 0, api.KeysetResult{}
	}
	return r.From, r.Counts
}

// resumeFrom is the position a run's first read is at.
func resumeFrom(in api.KeysetInput) int {
	if in.Resume == nil {
		return 0
	}
	return in.Resume.From
}

// goOn continues the pass in a new run from r, on the new current build
// when move.
func goOn(ctx workflow.Context, in api.KeysetInput, r api.KeysetResume, move bool) error {
	in.Resume = &r
	if move {
		return workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{
			InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}, KeysetWorkflow, in)
	}
	return workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
}
