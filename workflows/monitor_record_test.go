package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

func TestHealthPatches(t *testing.T) {
	since := time.Date(2026, 11, 22, 23, 1, 2, 0, time.UTC)
	c := model.Cluster{BMMs: []model.BMM{
		{Name: "m1", ReadyState: model.ReadyTrue},
		{Name: "m2", ReadyState: model.ReadyTrue},
		{Name: "m3", ReadyState: model.ReadyTrue},
		{Name: "off", ReadyState: model.ReadyFalse, PowerState: model.PowerOff},
		{Name: "spare", ReadyState: model.ReadyTrue, DetailedStatus: model.BMMAvailable},
		{Name: "back", ReadyState: model.ReadyUnknown, ReadOnlyRootFS: true},
	}}
	ns := []kube.NodeStatus{
		{Node: "m1", Exists: true, Ready: "True"},
		{Node: "m2", Exists: true, Ready: "Unknown", ReadyTransition: since},
		{Node: "m3", Exists: true, Ready: "True", ReadOnlyRootFS: true},
		{Node: "off", Exists: true, Ready: "Unknown"},
		{Node: "spare"},
		{Node: "back", Exists: true, Ready: "True", ReadyTransition: since},
	}
	tr, fa := true, false
	require.Equal(t, []api.BMMPatch{
		{BMM: "m2", ReadyState: api.Str("Unknown"), ReadySince: &since},
		{BMM: "m3", ReadOnlyRootFS: &tr},
		{BMM: "back", ReadyState: api.Str("True"), ReadySince: &since, ReadOnlyRootFS: &fa},
	}, healthPatches(c, ns), "only changes; nothing for a powered-off BMM or a missing node")
}
