package api

import (
	"time"

	"github.com/rackroll/rackroll/internal/placement"
)

// ReplaceRolesID is the re-placement's workflow id: one per cluster.
func ReplaceRolesID(cluster string) string { return "replace-roles:" + cluster }

// ReplaceRolesInput starts the re-placement of a cluster's roles.
type ReplaceRolesInput struct {
	Cluster string `json:"cluster"`
}

// ReplaceRolesStatus is the re-placement's progress (query status) and
// result.
type ReplaceRolesStatus struct {
	Cluster string `json:"cluster"`
	// Plan is the changes planned when the workflow started; each step
	// plans again from the ledger, so Done may differ when the site moved.
	Plan     []placement.Change `json:"plan"`
	Done     []RoleChangeRecord `json:"done,omitempty"`
	Current  *placement.Change  `json:"current,omitempty"`
	Error    string             `json:"error,omitempty"`
	Finished bool               `json:"finished"`
}

// RoleChangeRecord is one change made (or failed: Detail says why).
type RoleChangeRecord struct {
	placement.Change
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	OK         bool      `json:"ok"`
	Detail     string    `json:"detail,omitempty"`
}
