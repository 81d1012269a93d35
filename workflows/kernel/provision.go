package kernel

import (
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/workflow"
)

// SpareServes is the promotion's readiness test of the spare's node: Ready
// and, with the gate, a writable root filesystem (a spare that fell sick
// while the KCP was down is provisioned again, not promoted as it is).
func SpareServes(ns kube.NodeStatus, gated bool) bool {
	return ns.IsReady() && (!gated || !ns.ReadOnlyRootFS)
}

// Provision reimages st's BMM to version and waits until its node is
// Ready on it, within limit, recording each phase in the ledger. The
// failover uses it for the spare and for the failed KCP.
func Provision(ctx workflow.Context, st *Steps, cs api.ClusterState, version string, lim Limit) (bool, string) {
	return ProvisionClearing(ctx, st, cs, version, lim, false)
}

// ProvisionClearing is Provision; clear lifts the Unhealthy mark with
// the success (the failover's provisioning of the relabelled KCP).
func ProvisionClearing(ctx workflow.Context, st *Steps, cs api.ClusterState, version string, lim Limit, clear bool) (bool, string) {
	start := workflow.Now(ctx)
	image := strings.ReplaceAll(cs.ImageURLTemplate, "{version}", version)
	st.Status(model.BMMDeprovisioning, "Remediation: reprovisioning with runtime "+version)
	out, err := st.ReimageUntilBack(ReimageJob{Verb: "Reprovision", ImageURL: image, Version: version, Limit: lim, Force: true,
		WaitLimit: func() time.Duration { return lim.Left(ctx, start).D },
		Provisioning: func() {
			st.Status(model.BMMProvisioning, "Remediation: waiting for node "+st.T.Node+" on runtime "+version)
		}})
	if err != nil && !out.Waiting {
		msg := "reimage: " + temporalerr.Message(err)
		st.Status(model.BMMError, "Remediation: "+msg)
		return false, msg
	}
	if err == nil && out.node.ReadOnlyRootFS {
		err = fmt.Errorf("node %s is Ready but its root filesystem is still read-only", out.node.Node)
	}
	if err != nil {
		msg := temporalerr.Message(err)
		st.Status(model.BMMError, "Remediation: "+msg)
		return false, msg
	}
	st.Record(api.BMMPatch{RuntimeVersion: api.Str(version), DetailedStatus: api.Str(model.BMMProvisioned), DetailedStatusMessage: api.Str(""),
		PowerState: api.Str(model.PowerOn), ReadyState: api.Str(model.ReadyTrue), ClearUnhealthy: clear})
	KeysAfterReinstall(ctx, cs.Cluster.Name, st.T.BMM, "reprovisioned with runtime "+version)
	return true, ""
}
