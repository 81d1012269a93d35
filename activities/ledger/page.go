package ledger

import (
	"context"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
)

// ReadPageInput names the cluster and the page of its BMMs wanted.
type ReadPageInput struct {
	Cluster string          `json:"cluster"`
	Page    api.PageRequest `json:"page"`
}

// ReadPage returns a page of the ledger's BMMs with the site-wide facts
// and the keysets without their outcomes (query page), so a run that walks
// every BMM never holds the whole site in its history. A ledger on a build
// from before the query answers the whole state, narrowed here.
func (a *Activities) ReadPage(ctx context.Context, in ReadPageInput) (api.PageResult, error) {
	var res api.PageResult
	v, err := a.Client.QueryWorkflow(ctx, api.ClusterID(in.Cluster), "", api.QueryPage, in.Page)
	if err != nil && strings.Contains(err.Error(), "unknown queryType") {
		st, err := a.ReadCluster(ctx, in.Cluster)
		if err != nil {
			return res, err
		}
		res.State, res.Total = st.Page(in.Page.From, in.Page.N)
		return res, nil
	}
	if err != nil {
		return res, notRegistered(in.Cluster, err)
	}
	return res, v.Get(&res)
}
