package bench_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/capacity"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
)

// instant stands in for the BMCs and the Kubernetes API, so the history
// benchmark measures workflow histories, not hardware: every step succeeds
// (at once, or after its timings) and every node comes back on a new boot
// at the version asked. TestInstantAnswersEveryActivity keeps it complete.
type instant struct{ timings instantTimings }

// instantTimings make the instant hardware take honest compressed time
// (the fleet benchmark: the critical-path bench's lab timings); zero is
// at once (the history benchmark).
type instantTimings struct {
	Reimage, Boot, Power, Drain time.Duration
}

// take waits d, or until the activity is cancelled.
func take(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (instant) CheckImage(_ context.Context, in image.CheckInput) (api.ImageCheck, error) {
	return api.ImageCheck{URL: in.URL, OK: true, Answer: "200 OK"}, nil
}
func (instant) CheckCapacity(_ context.Context, in kube.CapacityInput) (capacity.Report, error) {
	return capacity.Report{Batch: in.Nodes}, nil
}
func (instant) Cordon(context.Context, string) error     { return nil }
func (instant) Uncordon(context.Context, string) error   { return nil }
func (instant) DeleteNode(context.Context, string) error { return nil }
func (instant) LabelNode(context.Context, string, map[string]string) error {
	return nil
}
func (i instant) Drain(ctx context.Context, _ kube.DrainInput) (kube.DrainResult, error) {
	if err := take(ctx, i.timings.Drain); err != nil {
		return kube.DrainResult{}, err
	}
	return kube.DrainResult{Completed: true}, nil
}
func (instant) ShutdownVMs(context.Context, kube.ShutdownInput) (kube.ShutdownResult, error) {
	return kube.ShutdownResult{}, nil
}
func (instant) StartVMs(context.Context, string) (kube.StartResult, error) {
	return kube.StartResult{}, nil
}
func (instant) ReadNode(_ context.Context, node string, _ model.NodeVersionSource) (kube.NodeStatus, error) {
	return readyNode(node, "", "boot-before"), nil
}

// ObserveNodes shows every node at the synthetic site's installed runtime,
// as the upgrade's version-source preflight asks to see before it starts.
func (instant) ObserveNodes(_ context.Context, nodes []string, _ model.NodeVersionSource) ([]kube.NodeStatus, error) {
	out := make([]kube.NodeStatus, len(nodes))
	for i, n := range nodes {
		out[i] = readyNode(n, lab.SyntheticInventory("x", 1, 1, 1).RuntimeVersion, "boot-before")
	}
	return out, nil
}
func (instant) ObserveControlPlane(_ context.Context, nodes []string) (kube.ControlPlaneNodes, error) {
	out := kube.ControlPlaneNodes{SeenAt: time.Now()}
	for _, n := range nodes {
		out.Nodes = append(out.Nodes, readyNode(n, "", "boot-before"))
	}
	return out, nil
}
func (i instant) WaitNodeReady(ctx context.Context, in kube.WaitReadyInput) (kube.NodeStatus, error) {
	if err := take(ctx, i.timings.Boot); err != nil {
		return kube.NodeStatus{}, err
	}
	return readyNode(in.Node, in.Version, "boot-after"), nil
}
func (i instant) Reimage(ctx context.Context, in bmc.ReimageInput) (bmc.ReimageResult, error) {
	if err := take(ctx, i.timings.Reimage); err != nil {
		return bmc.ReimageResult{}, err
	}
	return bmc.ReimageResult{Version: in.Version, Reimaged: true}, nil
}

// WatchReimage finds no hint of a failed install: the node decides.
func (instant) WatchReimage(context.Context, bmc.WatchInput) error { return nil }
func (instant) EjectMedia(context.Context, bmc.EjectInput) error   { return nil }
func (i instant) PowerOn(ctx context.Context, _ bmc.Endpoint) (bmc.PowerResult, error) {
	if err := take(ctx, i.timings.Power); err != nil {
		return bmc.PowerResult{}, err
	}
	return bmc.PowerResult{ResetType: "On", Evidence: "PowerState Off → On"}, nil
}
func (i instant) PowerOff(ctx context.Context, _ bmc.PowerOffInput) error {
	return take(ctx, i.timings.Power)
}
func (i instant) Restart(ctx context.Context, _ bmc.Endpoint) (bmc.PowerResult, error) {
	if err := take(ctx, i.timings.Power); err != nil {
		return bmc.PowerResult{}, err
	}
	return bmc.PowerResult{ResetType: "ForceRestart", Evidence: "PowerState PoweringOff"}, nil
}
func (instant) ReadPower(context.Context, bmc.Endpoint) (bmc.PowerStatus, error) {
	return bmc.PowerStatus{PowerState: "On", Health: "OK"}, nil
}

// The instant site's firmware is at every baseline: its inventory lists
// nothing to judge, and an update is done at once.
func (instant) ReadFirmware(context.Context, bmc.Endpoint) (firmware.Server, error) {
	return firmware.Server{}, nil
}
func (instant) ApplyFirmware(_ context.Context, in bmc.ApplyFirmwareInput) (bmc.ApplyFirmwareResult, error) {
	return bmc.ApplyFirmwareResult{Component: in.Component.Name, To: in.Component.Minimum, Detail: "at its baseline"}, nil
}
func (instant) FinishStagedFirmware(_ context.Context, in bmc.FinishStagedFirmwareInput) (bmc.FinishStagedFirmwareResult, error) {
	var out bmc.FinishStagedFirmwareResult
	for _, s := range in.Staged {
		out.Results = append(out.Results, bmc.ApplyFirmwareResult{Component: s.Component.Name, To: s.Component.Minimum, Applied: true, Staged: true})
	}
	return out, nil
}

// ApplyNodeKeys: the node holds the set at once.
func (instant) ApplyNodeKeys(_ context.Context, in kube.NodeKeysInput) (kube.NodeKeysResult, error) {
	return kube.NodeKeysResult{Node: in.Node, Pod: "keyset-" + in.Node, Report: in.Want}, nil
}

// The instant site's BMCs take every account at once.
func (instant) EnsureAccount(_ context.Context, in bmc.AccountInput) (bmc.AccountResult, error) {
	if !in.Enable {
		return bmc.AccountResult{UserName: in.UserName, Action: bmc.AccountAbsent}, nil
	}
	return bmc.AccountResult{UserName: in.UserName, Role: string(in.Role), Enabled: true, Action: bmc.AccountCreated}, nil
}

func readyNode(node, version, boot string) kube.NodeStatus {
	return kube.NodeStatus{Node: node, Exists: true, Ready: "True", RuntimeVersion: version, BootID: boot}
}

// TestInstantAnswersEveryActivity: the history benchmark once ran its
// upgrade against an instant without ReadNode, and nothing noticed until
// make bench. Every activity the real BMC and Kubernetes activities offer,
// instant answers too, with the same signature.
func TestInstantAnswersEveryActivity(t *testing.T) {
	fake := reflect.TypeOf(instant{})
	for _, real := range []any{&bmc.Activities{}, &kube.Activities{}, &image.Activities{}} {
		rt := reflect.TypeOf(real)
		for i := 0; i < rt.NumMethod(); i++ {
			m := rt.Method(i)
			f, ok := fake.MethodByName(m.Name)
			if !ok {
				t.Errorf("instant has no %s (%s): the history benchmark's workflows cannot call it", m.Name, rt)
				continue
			}
			// Drop the receivers, compare the rest.
			want, got := signature(m.Type), signature(f.Type)
			if want != got {
				t.Errorf("instant.%s is %s, the real one %s", m.Name, got, want)
			}
		}
	}
}

func signature(t reflect.Type) string {
	s := "("
	for i := 1; i < t.NumIn(); i++ {
		s += t.In(i).String() + ","
	}
	s += ")("
	for i := 0; i < t.NumOut(); i++ {
		s += t.Out(i).String() + ","
	}
	return s + ")"
}
