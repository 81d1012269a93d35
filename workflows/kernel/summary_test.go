package kernel

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

func TestPatchSummary(t *testing.T) {
	for _, c := range []struct {
		p    api.BMMPatch
		want string
	}{
		{api.BMMPatch{BMM: "rack1-c1", DetailedStatus: api.Str(model.BMMProvisioning), DetailedStatusMessage: api.Str("reimaging")},
			"Record rack1-c1: status Provisioning"},
		{api.BMMPatch{BMM: "rack1-c1", CordonStatus: api.Str(model.Cordoned), PowerState: api.Str(model.PowerOff)},
			"Record rack1-c1: power Off, cordon Cordoned"},
		{api.BMMPatch{BMM: "rack2-m1", Roles: []model.Role{model.RoleKCP}, RuntimeVersion: api.Str("4.2.0")},
			"Record rack2-m1: roles " + string(model.RoleKCP) + ", version 4.2.0"},
		{api.BMMPatch{BMM: "rack1-c2", DetailedStatusMessage: api.Str("x")}, "Record rack1-c2: message"},
		{api.BMMPatch{BMM: "rack1-c2", SerialNumber: api.Str("SN2")}, "Record rack1-c2: hardware"},
	} {
		require.Equal(t, c.want, patchSummary(c.p))
	}
	require.Equal(t, "Set site-a Running at 4.2.0",
		clusterStatusSummary("site-a", api.ClusterStatusPatch{DetailedStatus: model.ClusterRunning, RuntimeVersion: "4.2.0"}))
}

func TestActionDetails(t *testing.T) {
	require.Equal(t, "skipShutdown true", api.ActionDetails(api.ActionInput{Action: api.ActionPowerOff, SkipShutdown: true}))
	require.Equal(t, "evacuate true, evacuate limit 6s", api.ActionDetails(api.ActionInput{Action: api.ActionCordon, Evacuate: true, EvacuateTimeout: 6 * time.Second}))
	require.Equal(t, "no options", api.ActionDetails(api.ActionInput{Action: api.ActionRestart}))
	got := api.ActionDetails(api.ActionInput{Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{
		BMCCredentials: "secret-ref", SerialNumber: "SN9", BootMacAddress: "aa:bb:cc:dd:ee:ff"}})
	require.Equal(t, "safeguardMode All, storagePolicy DiscardAll, bootMacAddress aa:bb:cc:dd:ee:ff, serialNumber SN9", got)
	require.NotContains(t, got, "secret-ref")
}
