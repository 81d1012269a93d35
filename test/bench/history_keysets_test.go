package bench_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// withKeysets gives the cluster n keysets (the cluster's limit is
// keyset.MaxKeysets) as `starter keyset create` does — the ledger's
// Update, then the keyset's run — and waits until each has an outcome on
// every BMM. One in eight is a BMC keyset, each its own run over every
// BMC; the others are BMM keysets, applied together by the one nodes run:
// every keyset has its outcomes in the ledger, and the runs' activities
// stay within what two cores do in minutes. The history benchmark's
// upgrade then runs with them: each reinstalled node gets the keys again.
func withKeysets(b *testing.B, c client.Client, cluster string, n int) {
	ctx := context.Background()
	exp := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	for i := range n {
		s := keyset.Spec{Name: fmt.Sprintf("ks%02d", i), Expiration: exp}
		if i%8 == 0 {
			s.Kind, s.Role = keyset.KindBMC, keyset.Operator
			s.Accounts = []keyset.Account{{Name: fmt.Sprintf("ops%02d", i),
				PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll-keysets", Name: "bmc-ops", Key: "password"}}}
		} else {
			s.Kind, s.PrivilegeLevel = keyset.KindBMM, keyset.Standard
			s.Users = []keyset.User{{Name: fmt.Sprintf("user%02d", i), SSHPublicKey: keysettest.Line(byte(i), "bench")}}
		}
		h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.ClusterID(cluster), UpdateName: api.UpdateKeysetCreate,
			WaitForStage: client.WorkflowUpdateStageCompleted, Args: []any{api.KeysetRequest{Keyset: s, By: "bench"}}})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		if err != nil {
			b.Fatalf("create keyset %s: %v", s.Name, err)
		}
		in := api.KeysetInput{Cluster: cluster, Name: s.Name}
		id := api.KeysetID(cluster, s.Name)
		if s.Kind == keyset.KindBMM {
			in, id = api.KeysetInput{Cluster: cluster, Nodes: true}, api.KeysetNodesID(cluster)
		}
		if _, err := c.SignalWithStartWorkflow(ctx, id, api.SignalKeysetChanged, nil, client.StartWorkflowOptions{
			ID: id, TaskQueue: api.TaskQueue, WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		}, api.KeysetWorkflowName, in); err != nil {
			b.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Minute)
	for !everyOutcome(b, c, cluster, n) {
		if time.Now().After(deadline) {
			b.Fatalf("%d keysets not applied on every BMM within 30 minutes", n)
		}
		time.Sleep(2 * time.Second)
	}
}

// everyOutcome: each of the ledger's n keysets has an outcome on every BMM.
func everyOutcome(b *testing.B, c client.Client, cluster string, n int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v, err := c.QueryWorkflow(ctx, api.ClusterID(cluster), "", api.QueryState)
	var st api.ClusterState
	if err == nil {
		err = v.Get(&st)
	}
	if err != nil {
		// A ledger busy with the runs' outcomes may answer a query late.
		b.Logf("query the ledger: %v", err)
		return false
	}
	if len(st.Keysets) < n {
		return false
	}
	for _, k := range st.Keysets {
		if len(k.Outcomes) < len(st.Cluster.BMMs) {
			return false
		}
	}
	return true
}

// largestPayload is the largest payload set of ev (an input, result,
// signal, update or continue-as-new input), in bytes.
func largestPayload(ev *historypb.HistoryEvent) int {
	most := 0
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if m.Descriptor().FullName() == "temporal.api.common.v1.Payloads" {
			most = max(most, proto.Size(m.Interface()))
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.IsMap():
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					if fd.MapValue().Kind() == protoreflect.MessageKind {
						walk(mv.Message())
					}
					return true
				})
			default:
				walk(v.Message())
			}
			return true
		})
	}
	walk(ev.ProtoReflect())
	return most
}
