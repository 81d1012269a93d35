package kernel

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/workflow"
)

// Summarize names the next activity in the Temporal UI (timeline and
// pending activities) and keeps ctx's other options. Summaries are user
// metadata: adding or rewording one does not change what replays.
func Summarize(ctx workflow.Context, summary string) workflow.Context {
	o := workflow.GetActivityOptions(ctx)
	o.Summary = summary
	return workflow.WithActivityOptions(ctx, o)
}

// patchSummary says what a ledger write records, as an operator would:
// "Record rack1-c1: status Provisioning, cordon Cordoned".
func patchSummary(p api.BMMPatch) string {
	var parts []string
	add := func(name string, v *string) {
		if v != nil {
			parts = append(parts, name+" "+*v)
		}
	}
	if p.Roles != nil {
		roles := make([]string, len(p.Roles))
		for i, r := range p.Roles {
			roles[i] = string(r)
		}
		parts = append(parts, "roles "+strings.Join(roles, "+"))
	}
	add("group", p.ManagementGroup)
	add("version", p.RuntimeVersion)
	add("status", p.DetailedStatus)
	add("power", p.PowerState)
	add("cordon", p.CordonStatus)
	add("ready", p.ReadyState)
	if p.BMC != nil || p.BootMACAddress != nil || p.SerialNumber != nil || p.BMCMACAddress != nil {
		parts = append(parts, "hardware")
	}
	if p.ProvisioningOver {
		parts = append(parts, "provisioning over")
	}
	if p.Ladder != nil {
		parts = append(parts, "ladder "+strings.Join(p.Ladder.Steps, ">"))
	}
	if p.ClearLadder {
		parts = append(parts, "ladder cleared")
	}
	if p.NodeLabels != nil {
		parts = append(parts, "node labels seen")
	}
	if len(parts) == 0 && p.DetailedStatusMessage != nil {
		parts = append(parts, "message")
	}
	return fmt.Sprintf("Record %s: %s", p.BMM, strings.Join(parts, ", "))
}

// clusterStatusSummary says what a set-cluster-status write records.
func clusterStatusSummary(cluster string, p api.ClusterStatusPatch) string {
	s := fmt.Sprintf("Set %s %s", cluster, p.DetailedStatus)
	if p.RuntimeVersion != "" {
		s += " at " + p.RuntimeVersion
	}
	return s
}
