package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
)

// The BMM keysets on a node (docs/keysets-nodes.md#the-keyset-pod): one pod per
// node, carrying every rackroll user the node should have, answers what
// the node holds once it is done; the activity checks that answer.

// NodeKeysSource yields the users of a cluster's BMM keysets active at a
// time, with their keys (the ledger's node-keys query, inside the
// worker): the keys reach the pod without passing through any workflow's
// history.
type NodeKeysSource interface {
	NodeKeys(ctx context.Context, cluster string, at time.Time) (keyset.NodeKeys, error)
}

// Application error types of ApplyNodeKeys, all naming the node.
const (
	// ErrKeysetSuperseded: the ledger's BMM keysets at the run's time are
	// no longer the set the run applies (non-retryable: the run continues
	// as new on the ledger's).
	ErrKeysetSuperseded = "KeysetSuperseded"
	// ErrKeysetPodFailed: the pod ended Failed, the reason its message;
	// the node keeps the users it had (non-retryable: a bad key or a host
	// that refuses stays so).
	ErrKeysetPodFailed = "KeysetPodFailed"
	// ErrKeysetPodNotRun: the pod did not end within the bound, a node
	// down most often (non-retryable: the bound is the step's).
	ErrKeysetPodNotRun = "KeysetPodNotRun"
	// ErrKeysetNodeMismatch: the pod succeeded but its report is not the
	// set (non-retryable).
	ErrKeysetNodeMismatch = "KeysetNodeMismatch"
)

// grantedBy follows an API error of the keyset pods: their permissions
// are not the ClusterRole's (which Forbidden's hint names).
const grantedBy = " (the keyset pods' permissions are deploy/keysets.yaml's Role)"

// DefaultKeysetPodTimeout bounds a pod's run when the input gives no
// Timeout and the activity has no deadline.
const DefaultKeysetPodTimeout = 2 * time.Minute

// NodeKeysInput names the node and the set it is to hold: by its report
// (keyset.Wanted at At), never by its keys.
type NodeKeysInput struct {
	Cluster string
	BMM     string
	Node    string
	// Want is the report of the set; At the time it was read at, which
	// the keys are asked for (so the ledger answers the same set).
	Want keyset.NodeReport
	At   time.Time
	// Timeout bounds the wait for the pod's end; 0: the activity's deadline.
	Timeout time.Duration
}

// NodeKeysResult is what the node answered, and whether a pod of an
// earlier attempt was reused (the same keys) or deleted first (others).
type NodeKeysResult struct {
	Node     string
	Pod      string
	Report   keyset.NodeReport
	Reused   bool `json:",omitempty"`
	Replaced bool `json:",omitempty"`
}

// ApplyNodeKeys makes a node's rackroll users the set in.Want names: it
// reads the keys (NodeKeysSource), creates the node's keyset pod in
// keyset.NodeNamespace, waits for its end within the bound (heartbeating
// its phase), checks its report (keyset.CheckReport) and deletes it —
// also when it failed or did not run. A pod an earlier attempt left is
// reused when it carries the same keys and deleted otherwise, so the node
// never has two.
func (a *Activities) ApplyNodeKeys(ctx context.Context, in NodeKeysInput) (NodeKeysResult, error) {
	if err := checkNodeKeysInput(in); err != nil {
		return NodeKeysResult{}, err
	}
	if a.opts.NodeKeys == nil {
		return NodeKeysResult{}, configError(errors.New("the worker has no source of the BMM keysets' keys (kube.Options.NodeKeys)"))
	}
	keys, err := a.opts.NodeKeys.NodeKeys(ctx, in.Cluster, in.At)
	if err != nil {
		return NodeKeysResult{}, temporal.NewApplicationError(fmt.Sprintf("node %s: read the BMM keysets of %s: %v", in.Node, in.Cluster, err), ErrSourceUnavailable, err)
	}
	if err := keyset.CheckReport(keys, in.Want); err != nil {
		return NodeKeysResult{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"node %s: the ledger's BMM keysets at %s are no longer the set this run applies (%v): superseded", in.Node, in.At.UTC().Format(time.RFC3339), err),
			ErrKeysetSuperseded, nil)
	}
	env, err := json.Marshal(keys)
	if err != nil {
		return NodeKeysResult{}, err
	}
	cs, err := a.nodeClient(ctx, in.Node)
	if err != nil {
		return NodeKeysResult{}, err
	}
	limit := withinDeadline(ctx, in.Timeout)
	if limit == 0 {
		limit = DefaultKeysetPodTimeout
	}
	until := time.Now().Add(limit)
	pods := cs.CoreV1().Pods(keyset.NodeNamespace)
	res := NodeKeysResult{Node: in.Node, Pod: keysetPodName(in.Node)}
	p, err := a.placeKeysetPod(ctx, pods, keysetPod(in.Node, string(env), limit, a.opts.KeysetImage), &res, until)
	if err != nil {
		return res, err
	}
	p, hold, err := a.waitKeysetPod(ctx, pods, p, until)
	switch {
	case err != nil:
		err = a.notRun(ctx, cs.CoreV1().Nodes(), in.Node, p, hold, limit, err)
	case hold.Final:
		err = temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s: the kubelet cannot start the keyset pod: %s; the node keeps the users it had", in.Node, hold), ErrKeysetPodFailed, nil)
	case p.Status.Reason == "DeadlineExceeded" && !started(p):
		// Its kubelet stopped it at the bound before it ran: said as a
		// pod that did not run in time, with what held it.
		err = a.notRun(ctx, cs.CoreV1().Nodes(), in.Node, p, hold, limit, errNotEnded)
	case rejected(p):
		err = a.refused(ctx, cs.CoreV1().Nodes(), in.Node, p)
	default:
		err = nodeAnswer(in.Node, p, keys, &res)
	}
	// Deleted whatever came of it: a pod left behind would hold the name,
	// and a failed one its message, for nothing. A delete refused is said
	// when nothing else went wrong (a missing grant is the operator's to
	// fix); a delete that did not get through is the next attempt's.
	if derr := removeKeysetPod(ctx, pods, p); err == nil && derr != nil {
		var app *temporal.ApplicationError
		if derr = Forbidden(derr); errors.As(derr, &app) {
			return res, derr
		}
	}
	return res, err
}

// removeKeysetPod deletes p, as last seen, if it is still this one.
func removeKeysetPod(ctx context.Context, pods typedcorev1.PodInterface, p *corev1.Pod) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	last, err := pods.Get(dctx, p.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("node %s: read keyset pod %s to delete it: %w", p.Spec.NodeName, p.Name, err)
	case last.UID != p.UID:
		return nil // another attempt's
	}
	if err := deletePod(dctx, pods, last); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("node %s: delete keyset pod %s/%s: %w%s", p.Spec.NodeName, keyset.NodeNamespace, p.Name, err, grantedBy)
	}
	return nil
}

func checkNodeKeysInput(in NodeKeysInput) error {
	switch {
	case in.Node == "":
		return invalidInput("node: required: the node to apply the BMM keysets to (BMM %q)", in.BMM)
	case in.Cluster == "":
		return invalidInput("cluster: required: the cluster whose BMM keysets node %s is to hold", in.Node)
	case in.At.IsZero():
		return invalidInput("at: required: the time the set was read at (node %s)", in.Node)
	case in.Want.Digest == "" || in.Want.Users < 0:
		return invalidInput("want: %+v — the report of the set node %s is to hold (keyset.Wanted)", in.Want, in.Node)
	case in.Timeout < 0:
		return invalidInput("timeout: %v — negative (node %s)", in.Timeout, in.Node)
	}
	return nil
}

// placeKeysetPod creates want, or reuses the node's pod an earlier
// attempt left with the same keys, or deletes one with other keys (or
// failed, or terminating) and waits for it to be gone first.
func (a *Activities) placeKeysetPod(ctx context.Context, pods typedcorev1.PodInterface, want *corev1.Pod, res *NodeKeysResult, until time.Time) (*corev1.Pod, error) {
	for {
		old, err := pods.Get(ctx, want.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			p, err := pods.Create(ctx, want, metav1.CreateOptions{})
			switch {
			case err == nil:
				return p, nil
			case apierrors.IsAlreadyExists(err):
				continue // another attempt's, just created: look again
			case apierrors.IsNotFound(err):
				return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s: create keyset pod: %v: the namespace %s is missing (kubectl apply -k deploy/ makes it, docs/install.md)",
					want.Spec.NodeName, err, keyset.NodeNamespace), ErrConfig, err)
			}
			return nil, Forbidden(fmt.Errorf("node %s: create keyset pod %s/%s: %w%s", want.Spec.NodeName, keyset.NodeNamespace, want.Name, err, grantedBy))
		case err != nil:
			return nil, Forbidden(fmt.Errorf("node %s: read keyset pod %s/%s: %w%s", want.Spec.NodeName, keyset.NodeNamespace, want.Name, err, grantedBy))
		case old.DeletionTimestamp == nil && old.Status.Phase != corev1.PodFailed && keysOfPod(old) == keysOfPod(want) &&
			old.Spec.NodeName == want.Spec.NodeName:
			res.Reused = true
			return old, nil
		case old.DeletionTimestamp == nil:
			res.Replaced = true
			if err := deletePod(ctx, pods, old); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return nil, Forbidden(fmt.Errorf("node %s: delete the keyset pod an earlier attempt left: %w%s", want.Spec.NodeName, err, grantedBy))
			}
		}
		heartbeat(ctx, "waiting for an earlier keyset pod to be gone")
		if time.Now().After(until) {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s: the keyset pod an earlier attempt left (%s) was not gone within the bound: its kubelet has not stopped it",
				want.Spec.NodeName, old.Status.Phase), ErrKeysetPodNotRun, nil)
		}
		if err := sleep(ctx, a.opts.PollInterval); err != nil {
			return nil, err
		}
	}
}

// waitKeysetPod polls p until it ends, until its status says it never
// will (holdOf: Final), or until passes, heartbeating its phase and why it
// waits; it returns the pod as last seen and that why.
func (a *Activities) waitKeysetPod(ctx context.Context, pods typedcorev1.PodInterface, p *corev1.Pod, until time.Time) (*corev1.Pod, podHold, error) {
	var hold podHold
	for {
		cur, err := pods.Get(ctx, p.Name, metav1.GetOptions{})
		switch {
		case err == nil && cur.UID != p.UID, apierrors.IsNotFound(err):
			// Deleted by someone else: retried, the next attempt makes one.
			return p, hold, fmt.Errorf("node %s: keyset pod %s was deleted before it ended", p.Spec.NodeName, p.Name)
		case err == nil:
			p, hold = cur, holdOf(cur, hold)
			if ended(p) || hold.Final {
				return p, hold, nil
			}
		}
		heartbeat(ctx, strings.TrimSpace(string(p.Status.Phase)+" "+hold.Reason))
		if time.Now().After(until) {
			return p, hold, errNotEnded
		}
		if err := sleep(ctx, a.opts.PollInterval); err != nil {
			return p, hold, err
		}
	}
}

var errNotEnded = errors.New("not ended")

// notRun says why the pod did not end in time: what its status names
// (an image the kubelet cannot pull, a scheduler's refusal), else the
// node's state when it never started (a node down most often); other
// errors are returned.
func (a *Activities) notRun(ctx context.Context, nodes nodeGetter, node string, p *corev1.Pod, hold podHold, limit time.Duration, err error) error {
	if !errors.Is(err, errNotEnded) {
		return err
	}
	why := "it started and did not end"
	switch {
	case hold.Reason != "":
		why = "it never started: " + hold.String()
	case !started(p):
		why = "it never started"
		if n, err := nodes.Get(ctx, node, metav1.GetOptions{}); err == nil {
			why += ": " + nodeStatusFrom(n, model.NodeVersionSource{}).String()
		} else if apierrors.IsNotFound(err) {
			why += ": the node does not exist"
		}
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s did not run its keyset pod within %v (%s, phase %s); the node keeps the users it had",
		node, roundWait(limit), why, p.Status.Phase), ErrKeysetPodNotRun, nil)
}

type nodeGetter interface {
	Get(context.Context, string, metav1.GetOptions) (*corev1.Node, error)
}

// refused says why the kubelet refused the pod at admission, naming the
// node's taints the pod does not tolerate when that was the reason.
func (a *Activities) refused(ctx context.Context, nodes nodeGetter, node string, p *corev1.Pod) error {
	why := fmt.Sprintf("%s: %s", p.Status.Reason, cut(p.Status.Message))
	if n, err := nodes.Get(ctx, node, metav1.GetOptions{}); err == nil {
		if t := untolerated(n.Spec.Taints, p.Spec.Tolerations); t != "" {
			why += fmt.Sprintf("; the node carries %s, which a keyset pod does not tolerate (it tolerates a cordon and a node not ready or unreachable: remove the taint to give the node its keys)", t)
		}
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s: the kubelet refused the keyset pod (%s); the node keeps the users it had", node, why), ErrKeysetPodFailed, nil)
}

// nodeAnswer checks a pod that ended: Succeeded with the report of keys.
func nodeAnswer(node string, p *corev1.Pod, keys keyset.NodeKeys, res *NodeKeysResult) error {
	t := terminated(p)
	msg := ""
	if t != nil {
		msg = t.Message
	}
	if p.Status.Phase == corev1.PodFailed {
		code := int32(-1)
		if t != nil {
			code = t.ExitCode
		}
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s: keyset pod failed (exit code %d, %s): %s; the node keeps the users it had",
			node, code, p.Status.Reason, cut(msg)), ErrKeysetPodFailed, nil)
	}
	if err := json.Unmarshal([]byte(msg), &res.Report); err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s: keyset pod answered %q, not a report: %v", node, cut(msg), err), ErrKeysetNodeMismatch, nil)
	}
	if err := keyset.CheckReport(keys, res.Report); err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s: %v", node, err), ErrKeysetNodeMismatch, nil)
	}
	return nil
}

// cut keeps an answer short enough for an error (a termination message
// may be 4 KiB).
func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
