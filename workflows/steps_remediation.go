package workflows

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"go.temporal.io/sdk/workflow"
)

// Step helpers the remediation ladders need beyond steps.go. Their names
// carry "rem" because other BMM workflows add helpers to the same type.

// remReimage reinstalls version even when the machine runs it already (a
// reprovision repairs a server in place, so "already on that version" is
// no reason to skip it), the attempt bounded by limit (reprovisionTimeout)
// rather than the action's 3 hours.
func (s *steps) remReimage(imageURL, version string, limit time.Duration) error {
	var r bmc.ReimageResult
	return workflow.ExecuteActivity(s.long(limit, fmt.Sprintf("Reprovision %s with %s", s.t.BMM, version)), ba.Reimage,
		bmc.ReimageInput{Endpoint: s.t.Endpoint, ImageURL: imageURL, Version: version, Force: true}).Get(s.ctx, &r)
}

// remWaitReady waits until the node is Ready (on version, unless "") for at
// most limit: a reboot is bounded by rebootTimeout, a reprovision by
// reprovisionTimeout. The status returned tells whether the trigger's
// condition (a read-only root filesystem) is gone too.
func (s *steps) remWaitReady(version string, limit time.Duration) (kube.NodeStatus, error) {
	var ns kube.NodeStatus
	err := workflow.ExecuteActivity(s.long(limit, "Wait for "+s.t.Node+" Ready"), ka.WaitNodeReady,
		kube.WaitReadyInput{Node: s.t.Node, Version: version, Timeout: limit}).Get(s.ctx, &ns)
	return ns, err
}
