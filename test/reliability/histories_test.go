package reliability

import (
	"bytes"
	"context"
	"os"
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
