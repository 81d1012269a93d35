package production

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalcluster"
	"github.com/rackroll/rackroll/test/e2e"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// checkReimagedOnce: every BMM but the KCP retired to spare was reimaged
// exactly once — no kill or restart made an activity reimage twice — and
// the ledger has it on the target version.
func (s *site) checkReimagedOnce() {
	s.t.Helper()
	cs := e2e.LedgerState(s.t, s.client, s.cluster)
	counts := s.lab.ReimageCounts()
	var bad []string
	for _, b := range cs.Cluster.BMMs {
		want, version := 1, targetVersion
		if b.HasRole(model.RoleKCPSpare) {
			want, version = 0, b.RuntimeVersion // retired: keeps its old image
		}
		if counts[b.Name] != want || b.RuntimeVersion != version {
			bad = append(bad, fmt.Sprintf("%s reimaged %d× (want %d), at %s", b.Name, counts[b.Name], want, b.RuntimeVersion))
		}
	}
	if len(cs.Cluster.BMMs) != len(counts) || len(bad) > 0 {
		s.t.Errorf("%d BMMs in the ledger, %d in the lab; off their count or version:\n%s",
			len(cs.Cluster.BMMs), len(counts), strings.Join(bad, "\n"))
	}
}

// checkWorkers: both workers shared the work — the server upgrades'
// activities were started by more than one worker process (the SDK names
// a worker "<pid>@<host>@") — and every worker runs at the end.
func (s *site) checkWorkers(ctx context.Context) {
	s.t.Helper()
	ids, err := listIDs(ctx, s, `WorkflowType = "`+api.ServerUpgradeWorkflowName+`"`)
	if err != nil {
		s.t.Fatal(err)
	}
	pids := map[string]int{}
	for _, id := range ids {
		it := s.client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				s.t.Fatalf("history of %s: %v", id, err)
			}
			if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
				pids[strings.SplitN(a.GetIdentity(), "@", 2)[0]]++
			}
		}
	}
	s.t.Logf("%d server upgrades; activities started per worker pid: %v", len(ids), pids)
	if len(pids) < 2 {
		s.t.Errorf("activities of %d server upgrades ran on %d worker processes (%v), want at least 2", len(ids), len(pids), pids)
	}
	for _, w := range s.workers {
		if !w.Alive() {
			s.t.Errorf("worker pid %d is not running at the end", w.Pid())
		}
	}
}

// checkVisibility: the SQL visibility store answers what operators ask —
// `starter cluster history` (a WorkflowId query with STARTS_WITH) and a
// search-attribute list query with the Temporal CLI.
func (s *site) checkVisibility(ctx context.Context) {
	s.t.Helper()
	const bmm = "rack4-c1"
	s.eventually(time.Minute, "starter cluster history lists the upgrade of "+bmm, func() error {
		out, err := s.starter(ctx, "cluster", "history", "--cluster", s.cluster, "--bmm", bmm, "-o", "json")
		if err != nil {
			return err
		}
		var rows []struct{ Operation, Status, WorkflowID string }
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			return fmt.Errorf("%v in %s", err, out)
		}
		for _, r := range rows {
			if r.Operation == "upgrade" && r.Status == "completed" && r.WorkflowID == api.ServerUpgradeID(s.cluster, bmm) {
				return nil
			}
		}
		return fmt.Errorf("no completed upgrade row in %s", out)
	})
	query := fmt.Sprintf(`%s=%q AND %s=%q`, api.SearchAttrCluster, s.cluster, api.SearchAttrPhase, api.PhaseDone)
	s.eventually(time.Minute, "temporal workflow list --query '"+query+"'", func() error {
		out, err := s.temporal.CLI(ctx, "workflow", "list", "--namespace", temporalcluster.Namespace, "--query", query, "-o", "json")
		if err != nil {
			return err
		}
		if got := workflowIDs(out); !slices.Equal(got, []string{api.UpgradeID(s.cluster)}) {
			return fmt.Errorf("listed %v, want only %s:\n%s", got, api.UpgradeID(s.cluster), out)
		}
		return nil
	})
}

// checkLab: `starter lab check` replays the lab's event log with the
// upgrade's status and finds no broken safety rule (one control-plane
// disruption at a time, KCP count, rack order, thresholds).
func (s *site) checkLab(ctx context.Context) {
	s.t.Helper()
	status, err := s.starter(ctx, "upgrade", "status", "--cluster", s.cluster, "-o", "json")
	if err != nil {
		s.t.Fatal(err)
	}
	statusPath := filepath.Join(s.dir, "upgrade-status.json")
	if err := os.WriteFile(statusPath, []byte(status), 0o644); err != nil {
		s.t.Fatal(err)
	}
	out, err := s.starter(ctx, "lab", "check", "--events", s.eventsPath, "--inventory", s.invPath, "--upgrade", statusPath)
	if err != nil {
		s.t.Errorf("lab check: %v", err)
	}
	s.t.Log(strings.TrimSpace(out))
}

// listIDs lists the workflow ids a visibility query finds.
func listIDs(ctx context.Context, s *site, query string) ([]string, error) {
	var ids []string
	var token []byte
	for {
		resp, err := s.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", query, err)
		}
		for _, e := range resp.GetExecutions() {
			ids = append(ids, e.GetExecution().GetWorkflowId())
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			sort.Strings(ids)
			return ids, nil
		}
	}
}

// workflowIDs reads `temporal workflow list -o json`: one JSON object per
// execution, or an array of them.
func workflowIDs(out string) []string {
	type execution struct {
		Execution struct {
			WorkflowID string `json:"workflowId"`
		} `json:"execution"`
	}
	var ids []string
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			break
		}
		var list []execution
		if json.Unmarshal(raw, &list) != nil {
			var one execution
			json.Unmarshal(raw, &one)
			list = []execution{one}
		}
		for _, e := range list {
			ids = append(ids, e.Execution.WorkflowID)
		}
	}
	sort.Strings(ids)
	return ids
}
