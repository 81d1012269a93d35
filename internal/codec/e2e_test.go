package codec_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/codec"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A lab run with the codec on in the worker and the client: the cluster
// registers and a restart completes, and what the server stored holds no
// plaintext in any payload — while decrypting the same payloads finds it,
// so the check is not vacuous.
func TestE2ECodecEncryptsHistories(t *testing.T) {
	key := make([]byte, codec.KeySize)
	_, err := rand.Read(key)
	require.NoError(t, err)
	c, err := codec.New(key)
	require.NoError(t, err)
	env := e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{DataConverter: c.DataConverter(), FailureConverter: c.FailureConverter()})
	ctx := env.Context(3 * time.Minute)

	const bmm = "rack1-c1"
	actionID := api.ActionID(env.Cluster, bmm, 1)
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: actionID, TaskQueue: api.TaskQueue},
		api.BMMActionWorkflowName, api.ActionInput{Cluster: env.Cluster, BMM: bmm, Action: api.ActionRestart})
	require.NoError(t, err)
	var res api.ActionResult
	require.NoError(t, run.Get(ctx, &res), "the workflow completes with the codec on")

	var canaries [][]byte
	for _, s := range env.Inventory.Servers() {
		if s.Server.Name == bmm {
			canaries = [][]byte{[]byte(env.Cluster), []byte(s.Server.SerialNumber), []byte(s.Server.BMC.Address)}
		}
	}
	require.Len(t, canaries, 3)
	for _, id := range []string{api.ClusterID(env.Cluster), actionID} {
		payloads := storedPayloads(t, env.Client, id)
		require.NotEmpty(t, payloads, id)
		decryptedHits := 0
		for _, p := range payloads {
			require.Equal(t, codec.Encoding, string(p.Metadata["encoding"]), "%s: a payload in clear: %s", id, p.Metadata)
			for _, s := range canaries {
				require.False(t, bytes.Contains(p.Data, s), "%s: %q in a stored payload", id, s)
			}
			dec, err := c.Decode([]*commonpb.Payload{p})
			require.NoError(t, err)
			for _, s := range canaries {
				if bytes.Contains(dec[0].Data, s) {
					decryptedHits++
				}
			}
		}
		require.Positive(t, decryptedHits, "%s: the canaries are in the decrypted payloads", id)
		t.Logf("%s: %d payloads, all encrypted; %d canary hits once decrypted", id, len(payloads), decryptedHits)
	}

	// Another key cannot read them, and says which keys disagree.
	other := make([]byte, codec.KeySize)
	_, err = rand.Read(other)
	require.NoError(t, err)
	wrong, err := codec.New(other)
	require.NoError(t, err)
	_, err = wrong.Decode(storedPayloads(t, env.Client, actionID))
	require.ErrorContains(t, err, c.KeyID())
}

// storedPayloads walks a workflow's history as the server returns it and
// collects every payload the SDK's converters wrote. Search attributes and
// headers are excluded: the server indexes search attributes, so they are
// never encoded (rackroll's hold the cluster name and operation only).
func storedPayloads(t *testing.T, c client.Client, workflowID string) []*commonpb.Payload {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*commonpb.Payload
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		collect(ev.ProtoReflect(), &out)
	}
	return out
}

var payloadName = (&commonpb.Payload{}).ProtoReflect().Descriptor().FullName()

func collect(m protoreflect.Message, out *[]*commonpb.Payload) {
	if m.Descriptor().FullName() == payloadName {
		*out = append(*out, proto.Clone(m.Interface()).(*commonpb.Payload))
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch fd.Name() {
		case "search_attributes", "header":
			return true
		}
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		switch {
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				collect(v.List().Get(i).Message(), out)
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					collect(mv.Message(), out)
					return true
				})
			}
		default:
			collect(v.Message(), out)
		}
		return true
	})
}
