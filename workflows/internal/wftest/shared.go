package wftest

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

const Compute = "rack1-c1"

func Act(action, bmm string) api.ActionInput {
	return api.ActionInput{Cluster: "site-a", BMM: bmm, Action: action}
}

type UpdateResult struct {
	Rejected error
	Err      error
	Value    any
	Done     bool
}

func SendUpdate(env *testsuite.TestWorkflowEnvironment, name string, id string, res *UpdateResult, arg any) {
	env.UpdateWorkflow(name, id, &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { res.Rejected = err; res.Done = true },
		OnComplete: func(v any, err error) {
			res.Value, res.Err, res.Done = v, err, true
		},
	}, arg)
}

// A limit bounds its step, retries included: a BMC (or API) that never
// answers usefully ends the step within the site's limit, and the failure
// names the step, the BMM, the limit and where it is set. The activities
// hang far past every limit on the workflow clock (time-skipping).
const Hung = 100 * time.Hour

// Slack is what a step may take past its limit in these tests: the
// activities after it (ledger records, the eject) answer at once.
const Slack = 5 * time.Second

func LimitOf(d time.Duration) *model.Duration { v := model.Duration(d); return &v }

// NoUpgrade is the invariants' target version for a log without an
// upgrade: no reimage goes to it, so none counts for the rack rules.
const NoUpgrade = "none (no upgrade runs)"

// PropertyN is how many scenarios a property test draws: 200, or
// RACKROLL_PROPERTY_N.
func PropertyN(t *testing.T) int {
	s := os.Getenv("RACKROLL_PROPERTY_N")
	if s == "" {
		return 200
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("RACKROLL_PROPERTY_N %q: want a whole number of scenarios, 1 or more", s)
	}
	return n
}

func PropertySeed(t *testing.T) uint64 {
	switch s := os.Getenv("RACKROLL_PROPERTY_SEED"); s {
	case "":
		return 20261121 // fixed: CI runs the same scenarios every time
	case "random":
		return uint64(time.Now().UnixNano())
	default:
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("RACKROLL_PROPERTY_SEED %q: want a number or random", s)
		}
		return v
	}
}

// Index is where step is in calls (-1 when absent).
func Index(calls []string, step string) int { return slices.Index(calls, step+" "+Compute) }

// RunRemediation runs remediation (RemediationWorkflow) for bmm on r, with
// failover (KCPFailoverWorkflow) registered, and returns its result.
func RunRemediation(t *testing.T, r *FakeSite, bmm string, trig remediate.Trigger, remediation, failover any) api.RemediationStatus {
	t.Helper()
	env := r.NewEnv()
	env.RegisterWorkflow(failover)
	env.ExecuteWorkflow(remediation, api.RemediationInput{Cluster: "site-a", BMM: bmm, Trigger: trig, Since: env.Now()})
	require.NoError(t, env.GetWorkflowError())
	var st api.RemediationStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Finished)
	return st
}

// Grow adds servers to the fake site as a registration joins them: running,
// Ready, on the site's runtime, with the role given ("rack3-mgmt1:management/a").
func (f *FakeSite) Grow(entries ...string) {
	for _, e := range entries {
		b := model.BMM{ReadyState: model.ReadyTrue, DetailedStatus: model.BMMProvisioned, RuntimeVersion: f.St.Cluster.RuntimeVersion,
			PowerState: model.PowerOn, CordonStatus: model.Uncordoned}
		name, role, _ := strings.Cut(e, ":")
		role, b.ManagementGroup, _ = strings.Cut(role, "/")
		b.Name, b.NodeName, b.Roles = name, name, []model.Role{model.Role(role)}
		b.Rack, _, _ = strings.Cut(name, "-")
		f.St.Cluster.BMMs = append(f.St.Cluster.BMMs, b)
		f.Nodes[name] = &FakeNode{Exists: true, Ready: model.ReadyTrue, Version: f.St.Cluster.RuntimeVersion, since: -1}
		f.shown[name] = events.NodeReady
	}
}

// RunUpgrade runs a whole upgrade (wf, RuntimeUpgradeWorkflow) to 4.2.0
// on f in a fresh environment.
func RunUpgrade(t *testing.T, f *FakeSite, wf any) api.UpgradeStatus {
	t.Helper()
	env := f.NewEnv()
	env.ExecuteWorkflow(wf, UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	return st
}

func PlacedRoles(f *FakeSite) (kcp []string, spare string) {
	for _, b := range f.St.Cluster.BMMs {
		switch b.Roles[0] {
		case model.RoleKCP:
			kcp = append(kcp, b.Name)
		case model.RoleKCPSpare:
			spare = b.Name
		}
	}
	return kcp, spare
}
