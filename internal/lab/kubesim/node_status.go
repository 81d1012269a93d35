package kubesim

import (
	"hash/fnv"
	"time"

	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons and messages, as a kubelet and the node lifecycle controller
// write them.
const (
	reasonReady       = "KubeletReady"
	reasonNotReady    = "KubeletNotReady"
	reasonUnknown     = "NodeStatusUnknown"
	msgReady          = "kubelet is posting ready status"
	msgBooting        = "machine is booting: container runtime not ready"
	msgNotReadyFault  = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady (injected fault " + string(faults.NodeNotReady) + ")"
	msgUnknown        = "Kubelet stopped posting node status."
	reasonReadOnlyFS  = "FilesystemIsReadOnly"
	reasonReadWriteFS = "FilesystemIsNotReadOnly"
	kubeletVersion    = "v1.35.4"
)

// nodeView is the node status a machine's state and faults call for.
type nodeView struct {
	posting bool // the kubelet is alive and posting status (heartbeats)
	ready   corev1.ConditionStatus
	reason  string
	message string
	rofs    bool
}

// desiredView maps machine state and faults to node status: powered off
// or faults.NodeUnknown → heartbeats stop and Ready is Unknown (as the node
// lifecycle controller marks it); powered but not yet booted → False;
// faults.NodeNotReady → False; otherwise True.
func desiredView(st MachineState, active map[faults.Kind]bool) nodeView {
	v := nodeView{posting: true, ready: corev1.ConditionTrue, reason: reasonReady, message: msgReady, rofs: active[faults.ReadOnlyRootFS]}
	switch {
	case !st.Powered || active[faults.NodeUnknown]:
		v = nodeView{ready: corev1.ConditionUnknown, reason: reasonUnknown, message: msgUnknown}
	case !st.OSRunning:
		v.ready, v.reason, v.message = corev1.ConditionFalse, reasonNotReady, msgBooting
	case active[faults.NodeNotReady]:
		v.ready, v.reason, v.message = corev1.ConditionFalse, reasonNotReady, msgNotReadyFault
	}
	return v
}

// kubeletUp reports whether a kubelet runs on the machine, able to
// register its node and finish terminating pods.
func kubeletUp(st MachineState, active map[faults.Kind]bool) bool {
	return st.Powered && st.OSRunning && !active[faults.NodeUnknown]
}

// pressureConditions are the kubelet's other conditions, always healthy here.
var pressureConditions = []struct {
	typ             corev1.NodeConditionType
	reason, message string
}{
	{corev1.NodeMemoryPressure, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
	{corev1.NodeDiskPressure, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
	{corev1.NodePIDPressure, "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
}

// applyView sets node's conditions to v. A posting kubelet refreshes
// every heartbeat when beat is set or anything changed; a silent one
// leaves the heartbeats alone and its conditions go Unknown. It reports
// whether the status needs writing.
func applyView(status *corev1.NodeStatus, v nodeView, now time.Time, beat bool) bool {
	changed := false
	set := func(typ corev1.NodeConditionType, st corev1.ConditionStatus, reason, msg string) {
		t := metav1.NewTime(now)
		for i := range status.Conditions {
			c := &status.Conditions[i]
			if c.Type != typ {
				continue
			}
			if c.Status != st {
				c.LastTransitionTime = t
				changed = true
			}
			if c.Reason != reason || c.Message != msg {
				changed = true
			}
			c.Status, c.Reason, c.Message = st, reason, msg
			if v.posting && (beat || changed) {
				c.LastHeartbeatTime = t
			}
			return
		}
		changed = true
		status.Conditions = append(status.Conditions, corev1.NodeCondition{
			Type: typ, Status: st, Reason: reason, Message: msg, LastTransitionTime: t, LastHeartbeatTime: t,
		})
	}
	if !v.posting {
		set(corev1.NodeReady, v.ready, v.reason, v.message)
		for _, p := range pressureConditions {
			set(p.typ, corev1.ConditionUnknown, reasonUnknown, msgUnknown)
		}
		return changed
	}
	for _, p := range pressureConditions {
		set(p.typ, corev1.ConditionFalse, p.reason, p.message)
	}
	rofs, reason, msg := corev1.ConditionFalse, reasonReadWriteFS, "root filesystem is writable"
	if v.rofs {
		rofs, reason, msg = corev1.ConditionTrue, reasonReadOnlyFS, "root filesystem is mounted read-only (injected fault "+string(faults.ReadOnlyRootFS)+")"
	}
	set(model.ConditionReadOnlyRootFilesystem, rofs, reason, msg)
	set(corev1.NodeReady, v.ready, v.reason, v.message)
	return changed || beat
}

// readyStatus returns the node's Ready condition status ("" when absent).
func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// lastHeartbeat returns the Ready condition's lastHeartbeatTime.
func lastHeartbeat(n *corev1.Node) time.Time {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.LastHeartbeatTime.Time
		}
	}
	return time.Time{}
}

// heartbeatDue reports whether node's kubelet should post again. Each
// node's period is stretched by a fixed 0–25 % (from its name) so
// heartbeats of nodes registered together spread out over time.
func heartbeatDue(node string, last, now time.Time, every time.Duration) bool {
	h := fnv.New32a()
	h.Write([]byte(node))
	period := every + every*time.Duration(h.Sum32()%256)/1024
	return now.Sub(last) >= period
}

// newNode is the node a kubelet registers for the machine. Registration
// is when a kubelet applies its --node-labels, and it applies nothing else:
// a Node deleted and registered again has lost every label set on it
// since (nodeLabels), and a stock kubelet never updates the labels of a
// Node that exists.
func newNode(m snapshot, now time.Time) *corev1.Node {
	labels := nodeLabels(m.Machine, m.boot.Version)
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: m.NodeName, Labels: labels},
		Spec:       nodeSpec(m.Role),
		Status: corev1.NodeStatus{
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion:  kubeletVersion,
				BootID:          m.boot.ID,
				OSImage:         OSImage(m.boot.Version),
				OperatingSystem: "linux",
				Architecture:    "amd64",
			},
			Capacity:    nodeResources(),
			Allocatable: nodeResources(),
		},
	}
	applyView(&n.Status, desiredView(m.state, m.faults), now, true)
	return n
}

// nodeSpec taints a platform server's node: tenant pods stay on computes.
func nodeSpec(role string) corev1.NodeSpec {
	if role == "compute" {
		return corev1.NodeSpec{}
	}
	return corev1.NodeSpec{Taints: []corev1.Taint{platformTaint}}
}
