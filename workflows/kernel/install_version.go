package kernel

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// InstallVersion is the runtime a reimage, replace, remediation or
// failover installs on b: the version the cluster converges to for b's
// phase (upgradeplan.InstallVersion). Histories recorded before this rule
// keep the one they ran with: the server's own version, else the
// cluster's (fallback, "" to mean exactly the cluster's).
func InstallVersion(ctx workflow.Context, cs api.ClusterState, b model.BMM) string {
	return InstallVersionOr(ctx, cs, b, b.RuntimeVersion)
}

// InstallVersionOr is InstallVersion with the version a history from before
// install-converging-version installed (fallback).
func InstallVersionOr(ctx workflow.Context, cs api.ClusterState, b model.BMM, fallback string) string {
	if workflow.GetVersion(ctx, changeInstallConvergingVersion, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		return upgradeplan.InstallVersion(cs.Cluster, cs.UpgradeTarget, b)
	}
	if fallback == "" {
		return cs.Cluster.RuntimeVersion
	}
	return fallback
}
