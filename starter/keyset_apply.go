package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// Applying a BMC keyset (docs/keysets-bmc-apply.md#applying-a-bmc-keyset): once the
// ledger has written a BMC keyset (create, update, delete), the starter
// signals its KeysetWorkflow with start. The run reads the keyset from the
// ledger, so it applies whatever version the ledger has when it runs; a
// run already working gets the signal and continues as new on the newer
// version when its wave ends. `keyset apply` does the same on demand:
// after a start that failed, or for BMMs registered since.
//
// The BMM keysets are applied all at once (one keyset pod carries every
// rackroll user of a node): a write of any of them signals the cluster's
// one nodes run, api.KeysetNodesID, which applies the ledger's whole set
// to every node (docs/keysets-nodes.md#the-nodes-run).

// applyAfterWrite starts (or signals) the run of keyset k, written by the
// ledger — its own for a BMC keyset, the nodes run for a BMM one — and
// says so.
func applyAfterWrite(ctx context.Context, c client.Client, cluster string, k keyset.Keyset) (string, error) {
	if k.Kind == keyset.KindBMM {
		id, err := startNodes(ctx, c, cluster)
		if err != nil {
			return "", fmt.Errorf("keyset %s is written in the ledger, but the run that applies the BMM keysets did not start: %w; start it with `starter keyset apply --cluster %s --name %s`",
				k.Name, err, cluster, k.Name)
		}
		return fmt.Sprintf("applying the BMM keysets (this one's users with the others') to every node of %s: workflow %s; `starter keyset show --cluster %s --name %s` shows each node's outcome",
			cluster, id, cluster, k.Name), nil
	}
	id, err := startKeyset(ctx, c, cluster, k.Name)
	if err != nil {
		return "", fmt.Errorf("keyset %s is written in the ledger, but its run did not start: %w; start it with `starter keyset apply --cluster %s --name %s`",
			k.Name, err, cluster, k.Name)
	}
	return fmt.Sprintf("applying to every BMC of %s: workflow %s; `starter keyset show --cluster %s --name %s` shows each BMC's outcome", cluster, id, cluster, k.Name), nil
}

// startKeyset signals the keyset's workflow with start: one run per
// keyset, a running one told that the ledger changed.
func startKeyset(ctx context.Context, c client.Client, cluster, name string) (string, error) {
	id := api.KeysetID(cluster, name)
	_, err := c.SignalWithStartWorkflow(ctx, id, api.SignalKeysetChanged, nil, client.StartWorkflowOptions{
		ID:                    id,
		TaskQueue:             api.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         "Apply keyset " + name + " to the BMCs of " + cluster,
		TypedSearchAttributes: temporal.NewSearchAttributes(saCluster.ValueSet(cluster), saOperation.ValueSet("keyset")),
	}, api.KeysetWorkflowName, api.KeysetInput{Cluster: cluster, Name: name})
	return id, err
}

// startNodes signals the cluster's nodes run with start: one run for all
// the BMM keysets, a running one told that the ledger changed.
func startNodes(ctx context.Context, c client.Client, cluster string) (string, error) {
	id := api.KeysetNodesID(cluster)
	_, err := c.SignalWithStartWorkflow(ctx, id, api.SignalKeysetChanged, nil, client.StartWorkflowOptions{
		ID:                    id,
		TaskQueue:             api.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         "Apply the BMM keysets to the nodes of " + cluster,
		TypedSearchAttributes: temporal.NewSearchAttributes(saCluster.ValueSet(cluster), saOperation.ValueSet("keyset")),
	}, api.KeysetWorkflowName, api.KeysetInput{Cluster: cluster, Nodes: true})
	return id, err
}

func (a *app) keysetApplyCmd() *cobra.Command {
	var cluster, name string
	check := func() error { return required(flag{"cluster", cluster}, flag{"name", name}) }
	cmd := a.clientCmd("apply --cluster C --name KEYSET", "Apply a keyset again: a BMC keyset to every BMC (deleted, its accounts disabled), a BMM keyset with the others to every node",
		time.Minute, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			st, err := ledgerState(ctx, c, cluster)
			if err != nil {
				return err
			}
			k, live := keyset.Find(st.Keysets, name)
			if live && k.Kind == keyset.KindBMM {
				id, err := startNodes(ctx, c, cluster)
				if err != nil {
					return fmt.Errorf("start %s: %w", id, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "applying the BMM keysets (%s among them) to every node of %s: workflow %s\n", name, cluster, id)
				return nil
			}
			if _, removed := keyset.Find(st.RemovedKeysets, name); !removed && (!live || k.Kind != keyset.KindBMC) {
				return fmt.Errorf("cluster %s has no keyset %q, nor a deleted BMC keyset of that name (docs/keysets.md)", cluster, name)
			}
			id, err := startKeyset(ctx, c, cluster, name)
			if err != nil {
				return fmt.Errorf("start %s: %w", id, err)
			}
			what := "applying keyset %s to every BMC of %s: workflow %s"
			switch {
			case !live:
				what = "disabling the accounts of deleted keyset %s on every BMC of %s: workflow %s"
			case k.Expired(time.Now()):
				what = "disabling the accounts of expired keyset %s on every BMC of %s: workflow %s"
			}
			fmt.Fprintf(cmd.OutOrStdout(), what+"\n", name, cluster, id)
			return nil
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&name, "name", "", "the keyset to apply")
	return cmd
}
