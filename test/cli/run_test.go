package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
)

// temporalQuery runs `temporal workflow query -o json` and decodes the
// query's result (the CLI prints {"queryResult": [<result>]}).
func temporalQuery(t *testing.T, c *clis, id, query string, v any) {
	t.Helper()
	out := c.Temporal("workflow", "query", "--workflow-id", id, "--type", query, "-o", "json")
	var printed struct {
		QueryResult []json.RawMessage `json:"queryResult"`
	}
	decode(t, out, &printed)
	if len(printed.QueryResult) != 1 {
		t.Fatalf("query %s of %s printed %d results, want 1:\n%s", query, id, len(printed.QueryResult), out)
	}
	decode(t, string(printed.QueryResult[0]), v)
}

// tctlQuery runs `tctl workflow query` and decodes the result (tctl prints
// "Query result:" and then a JSON array of the results).
func tctlQuery(t *testing.T, c *clis, id, query string, v any) {
	t.Helper()
	out := c.Tctl("workflow", "query", "--workflow_id", id, "--query_type", query)
	text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out), "Query result:"))
	decode(t, text, &[]any{v})
}

// tctlOutput is the result JSON `tctl workflow observe` prints on its
// "Output:" line.
func tctlOutput(t *testing.T, out string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "Output:"); ok {
			return strings.TrimSpace(s)
		}
	}
	t.Fatalf("no Output: line in\n%s", out)
	return ""
}

// temporalStart runs `temporal workflow start` with the static summary and
// search attributes the starter also sets, so the UI lists the run the
// same way however it was started.
func temporalStart(t *testing.T, c *clis, workflowType, id, input, summary, operation string) {
	t.Helper()
	c.Temporal(startArgs("start", workflowType, id, input, summary, c.env.Cluster, operation)...)
}

// temporalExecute runs `temporal workflow execute -o json` (start and wait)
// and decodes the workflow's result; a failed workflow fails the test.
func temporalExecute(t *testing.T, c *clis, workflowType, id, input, summary, operation string, v any) {
	t.Helper()
	out := c.Temporal(append(startArgs("execute", workflowType, id, input, summary, c.env.Cluster, operation), "-o", "json")...)
	var printed struct {
		Status string          `json:"status"`
		Result json.RawMessage `json:"result"`
	}
	decode(t, out, &printed)
	if printed.Status != "COMPLETED" {
		t.Fatalf("%s ended %s:\n%s", id, printed.Status, out)
	}
	decode(t, string(printed.Result), v)
}

func startArgs(verb, workflowType, id, input, summary, cluster, operation string) []string {
	return []string{"workflow", verb, "--type", workflowType, "--task-queue", api.TaskQueue, "--workflow-id", id,
		"--input", input, "--static-summary", summary,
		"--search-attribute", api.SearchAttrCluster + "=" + quote(cluster),
		"--search-attribute", api.SearchAttrOperation + "=" + quote(operation)}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
