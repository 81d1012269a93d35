package wiring

import (
	"context"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"go.temporal.io/sdk/client"
)

// ledgerNodeKeys reads the BMM keysets' users with their keys from the
// cluster's ledger (query node-keys), for the kube activity that makes a
// keyset pod: the keys go from the ledger to the pod through this worker
// only, never through a workflow's history.
type ledgerNodeKeys struct{ temporal client.Client }

func (l ledgerNodeKeys) NodeKeys(ctx context.Context, cluster string, at time.Time) (keyset.NodeKeys, error) {
	v, err := l.temporal.QueryWorkflow(ctx, api.ClusterID(cluster), "", api.QueryNodeKeys, at)
	if err != nil {
		return keyset.NodeKeys{}, kube.SourceUnavailable(fmt.Errorf("cluster %s: read the BMM keysets from the ledger: %w", cluster, err))
	}
	var k keyset.NodeKeys
	if err := v.Get(&k); err != nil {
		return keyset.NodeKeys{}, fmt.Errorf("cluster %s: the ledger's node keys: %w", cluster, err)
	}
	return k, nil
}
