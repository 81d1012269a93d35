package wftest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// Recorded continue-as-new inputs (docs/self-upgrade-moves.md#moving-at-a-safe-point):
// workflows/testdata/carry/<WorkflowType>-<n>.json holds a long run's next
// input as the build that recorded it wrote it. A moved run starts on a
// newer build from what an older one wrote, and after a rollback on an
// older build from what a newer one wrote: files are never removed, and
// every build must read every one.

// CarryDir is the recordings' directory, from a family's package directory.
const CarryDir = "../testdata/carry"

// CarryFiles are the recordings of workflowType.
func CarryFiles(workflowType string) ([]string, error) {
	return filepath.Glob(filepath.Join(CarryDir, workflowType+"-*.json"))
}

// WriteCarry records p's data as file in CarryDir.
func WriteCarry(file string, p *commonpb.Payload) error {
	if err := os.MkdirAll(CarryDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(CarryDir, file), append(append([]byte{}, p.Data...), '\n'), 0o644)
}

// ReadCarry decodes a recording into v as the worker decodes a workflow
// input (JSON, the default converter's encoding; a payload codec, when on,
// wraps it outside the workflow code), and lists what of it v's type
// loses.
func ReadCarry(file string, v any) (lost []string, err error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p := &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)}, Data: data}
	if err := converter.GetDefaultDataConverter().FromPayload(p, v); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return LostFields(data, v)
}

// LostFields lists the paths of data's non-null values that do not come
// back the same when data is decoded into v's type and encoded again: a
// field renamed or removed since data was written.
func LostFields(data []byte, v any) ([]string, error) {
	again, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var was, now any
	if err := json.Unmarshal(data, &was); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(again, &now); err != nil {
		return nil, err
	}
	var lost []string
	var walk func(path string, a, b any)
	walk = func(path string, a, b any) {
		switch a := a.(type) {
		case nil:
		case map[string]any:
			bm, _ := b.(map[string]any)
			for k, av := range a {
				walk(path+"."+k, av, bm[k])
			}
		case []any:
			bs, _ := b.([]any)
			for i, av := range a {
				var bv any
				if i < len(bs) {
					bv = bs[i]
				}
				walk(fmt.Sprintf("%s[%d]", path, i), av, bv)
			}
		default:
			if !reflect.DeepEqual(a, b) {
				lost = append(lost, fmt.Sprintf("%s: %v, read as %v", path, a, b))
			}
		}
	}
	walk("", was, now)
	return lost, nil
}

// EachCarry runs check on every recording of workflowType, decoded into a
// T as the worker decodes an input. It fails when there is none, when one
// does not decode, and when T loses a field of it (a renamed or removed
// field would lose it silently).
func EachCarry[T any](t *testing.T, workflowType string, check func(t *testing.T, file string, old T)) {
	t.Helper()
	files, err := CarryFiles(workflowType)
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded %s carry: run with -update-carry", workflowType)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var old T
			lost, err := ReadCarry(f, &old)
			require.NoError(t, err)
			require.Empty(t, lost, "fields of %s this build does not read", f)
			check(t, f, old)
		})
	}
}
