package reliability

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	workflowservicepb "go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// secretNeedles are the forms a leaked BMC password would take: itself,
// and the Basic auth header value built from it (base64 of user:password).
func secretNeedles(t *testing.T, s *site) [][]byte {
	t.Helper()
	ref, ok := s.Inventory.BMCCredentials["default"]
	if !ok || ref.PasswordFile == "" {
		t.Fatalf("the lab inventory has no password file for credentials %q", "default")
	}
	pass, err := os.ReadFile(ref.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	pass = bytes.TrimSpace(pass)
	if len(pass) < 8 {
		t.Fatalf("the lab's BMC password is too short (%d bytes) to grep for without false hits", len(pass))
	}
	needles := [][]byte{pass}
	if ref.UsernameFile != "" {
		if user, err := os.ReadFile(ref.UsernameFile); err == nil {
			basic := base64.StdEncoding.EncodeToString([]byte(string(bytes.TrimSpace(user)) + ":" + string(pass)))
			needles = append(needles, []byte(basic))
		}
	}
	return needles
}

func hits(b []byte, needles [][]byte) int {
	n := 0
	for _, nd := range needles {
		n += bytes.Count(b, nd)
	}
	return n
}

// exportHistories writes every workflow history of the namespace (open and
// closed) as protojson into dir and returns the bytes to scan: the JSON,
// plus the decoded data of every payload in it (protojson shows payload
// data as base64, where a plain grep would miss a secret).
func exportHistories(t *testing.T, s *site, dir string) (scan []byte, workflows int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var token []byte
	for {
		resp, err := s.Client.ListWorkflow(ctx, &workflowservicepb.ListWorkflowExecutionsRequest{PageSize: 1000, NextPageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range resp.Executions {
			id, runID := ex.Execution.WorkflowId, ex.Execution.RunId
			h := &historypb.History{}
			it := s.Client.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					t.Fatalf("history of %s: %v", id, err)
				}
				h.Events = append(h.Events, ev)
			}
			b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.NewReplacer(":", "_", "/", "_").Replace(id) + "_" + runID + ".json"
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
			payloadData(h.ProtoReflect(), &buf)
			workflows++
		}
		if token = resp.NextPageToken; len(token) == 0 {
			break
		}
	}
	return buf.Bytes(), workflows
}

// payloadData appends the data of every Payload under m to buf.
func payloadData(m protoreflect.Message, buf *bytes.Buffer) {
	if p, ok := m.Interface().(*commonpb.Payload); ok {
		buf.WriteByte('\n')
		buf.Write(p.GetData())
		for _, v := range p.GetMetadata() {
			buf.Write(v)
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				payloadData(v.List().Get(i).Message(), buf)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				payloadData(mv.Message(), buf)
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			payloadData(v.Message(), buf)
		}
		return true
	})
}

// starterOutput runs read commands of the real starter against the site
// and returns everything they printed.
func starterOutput(t *testing.T, s *site, version string) []byte {
	t.Helper()
	_, starter := binaries(t)
	cmds := [][]string{
		{"cluster", "show", "--cluster", s.Cluster, "-o", "json"},
		{"cluster", "show", "--cluster", s.Cluster},
		{"cluster", "validate", "--inventory", s.InvPath, "-o", "json"},
		{"upgrade", "status", "--cluster", s.Cluster, "-o", "json"},
		{"upgrade", "status", "--cluster", s.Cluster},
		{"upgrade", "plan", "--cluster", s.Cluster, "--version", version},
		{"remediation", "list", "--cluster", s.Cluster, "-o", "json"},
		{"lab", "status", "--inventory", s.InvPath, "-o", "json"},
	}
	var out bytes.Buffer
	for _, args := range cmds {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, starter, append([]string{"--address", s.Server.Address}, args...)...)
		b, err := cmd.CombinedOutput()
		cancel()
		fmt.Fprintf(&out, "$ starter %s\n%s\n", strings.Join(args, " "), b)
		if err != nil && ctx.Err() != nil {
			t.Errorf("starter %s: %v", strings.Join(args, " "), err)
		}
	}
	return out.Bytes()
}

// checkSecrets greps histories, worker logs and starter output for the BMC
// password and records the hits.
func checkSecrets(t *testing.T, s *site, scenario, version string) {
	t.Helper()
	needles := secretNeedles(t, s)
	hist, n := exportHistories(t, s, filepath.Join(s.dir, "histories"))
	// An in-process worker logs through the test's quiet client: only the
	// worker binary has logs of its own to scan.
	var logs []byte
	if s.proc != nil {
		var err error
		if logs, err = os.ReadFile(s.workLog); err != nil {
			t.Fatal(err)
		}
	}
	starter := starterOutput(t, s, version)
	h, l, o := hits(hist, needles), hits(logs, needles), hits(starter, needles)
	t.Logf("secret scan: %d histories (%d bytes), worker log %d bytes, starter output %d bytes", n, len(hist), len(logs), len(starter))
	check(t, scenario+": histories scanned", "≥ 1", fmt.Sprint(n), n > 0)
	check(t, scenario+": secret hits (histories/worker log/starter)", "0", fmt.Sprintf("%d (%d/%d/%d)", h+l+o, h, l, o), h+l+o == 0)
	// A scan of nothing proves nothing: the worker log and the starter
	// output must hold what they are supposed to.
	scanned := bytes.Contains(starter, []byte(s.Cluster)) && (s.proc == nil || len(logs) > 0)
	checkBool(t, scenario+": worker log and starter output scanned", scanned)
}
