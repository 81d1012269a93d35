package sites

import (
	"context"
	"slices"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/client"
)

// PauseInput names the sites whose upgrades pause, and why.
type PauseInput struct {
	Clusters []string `json:"clusters"`
	Reason   string   `json:"reason,omitempty"`
}

// Told is what the sites answered an Update: who took it, and who refused
// it, each with why.
type Told struct {
	Took    []string `json:"took,omitempty"`
	Refused []string `json:"refused,omitempty"`
}

// PauseSites asks each site's upgrade to pause before its next group or
// rack (pause-update, as `starter upgrade pause` does).
func (a *Activities) PauseSites(ctx context.Context, in PauseInput) (Told, error) {
	return a.tell(ctx, in.Clusters, api.UpdatePause, api.PauseRequest{Reason: in.Reason}), ctx.Err()
}

// ContinueSites withdraws the pause PauseSites asked with the same reason
// (pause-update with Withdraw): a site past it goes on, one not there yet
// is asked no more. A site paused for another reason stays paused.
func (a *Activities) ContinueSites(ctx context.Context, in PauseInput) (Told, error) {
	return a.tell(ctx, in.Clusters, api.UpdatePause, api.PauseRequest{Reason: in.Reason, Withdraw: true}), ctx.Err()
}

// tell sends update (with args) to each cluster's upgrade, side by side,
// and waits for each answer.
func (a *Activities) tell(ctx context.Context, clusters []string, update string, args ...any) Told {
	refused := make([]string, len(clusters))
	each(len(clusters), func(i int) {
		h, err := a.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.UpgradeID(clusters[i]),
			UpdateName: update, Args: args, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		if err != nil {
			refused[i] = clusters[i] + ": " + err.Error()
		}
	})
	var t Told
	for i, c := range clusters {
		if refused[i] == "" {
			t.Took = append(t.Took, c)
		}
	}
	t.Refused = slices.DeleteFunc(refused, func(s string) bool { return s == "" })
	return t
}
