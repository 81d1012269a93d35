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

// pages walks the cluster's BMMs a page at a time; a run recorded before
// changePages read the whole ledger once, and walks that.
type pages struct {
	led   kernel.LedgerOf
	paged bool
	total int // the BMM count at the first read
}

// firstPage reads the ledger's first page (or, before changePages, the
// whole ledger): its keysets decide what the run does.
func firstPage(ctx workflow.Context, led kernel.LedgerOf) (pages, api.ClusterState, error) {
	p := pages{led: led, paged: workflow.GetVersion(ctx, changePages, workflow.DefaultVersion, 1) == 1}
	if !p.paged {
		cs, err := led.Read(ctx)
		p.total = len(cs.Cluster.BMMs)
		return p, cs, err
	}
	r, err := led.ReadPage(ctx, 0, pageSize)
	p.total = r.Total
	return p, r.State, err
}

// each calls fn with first, then with each page after it, read when the
// one before is done; an error of fn (a continue-as-new among them) ends
// the walk. A page is read by position: a BMM registered meanwhile may
// be met by the next run only, as when the list was read once.
func (p pages) each(ctx workflow.Context, first api.ClusterState, fn func(page api.ClusterState) error) error {
	page := first
	for from := 0; ; {
		if err := fn(page); err != nil {
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
