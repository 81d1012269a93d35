package api

import (
	"reflect"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// sampleValue is a set, non-zero value for a BMMPatch field of type t.
func sampleValue(t *testing.T, typ reflect.Type) reflect.Value {
	switch typ {
	case reflect.TypeFor[string]():
		return reflect.ValueOf("sample")
	case reflect.TypeFor[*string]():
		return reflect.ValueOf(Str("sample"))
	case reflect.TypeFor[bool]():
		return reflect.ValueOf(true)
	case reflect.TypeFor[*bool]():
		v := true
		return reflect.ValueOf(&v)
	case reflect.TypeFor[*time.Time]():
		v := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		return reflect.ValueOf(&v)
	case reflect.TypeFor[[]model.Role]():
		return reflect.ValueOf([]model.Role{model.RoleKCPSpare})
	case reflect.TypeFor[*model.LadderMark]():
		return reflect.ValueOf(&model.LadderMark{Role: model.RoleCompute, Steps: []string{"sample"}})
	case reflect.TypeFor[*model.UnhealthyMark]():
		return reflect.ValueOf(&model.UnhealthyMark{Reason: "sample", By: "sample"})
	case reflect.TypeFor[map[string]string]():
		return reflect.ValueOf(map[string]string{"sample": "sample"})
	case reflect.TypeFor[*model.BMCSpec]():
		return reflect.ValueOf(&model.BMCSpec{Address: "https://sample"})
	}
	t.Fatalf("BMMPatch has a field of type %v this test has no sample for: add one, and make sure ApplyPatch and Merge handle it", typ)
	return reflect.Value{}
}

// Every BMMPatch field is merged by Merge and applied by the ledger: a field
// added to the patch and forgotten in ApplyPatch fails here.
func TestEveryPatchFieldIsMergedAndApplied(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	bare := func() model.BMM { return model.BMM{Name: "b1"} }
	full := func() model.BMM {
		b := model.BMM{Name: "b1", DetailedStatus: model.BMMProvisioning, ProvisioningSince: &now,
			Ladder: &model.LadderMark{Role: model.RoleKCP, Steps: []string{"reboot"}}}
		b.ApplyMark(&model.UnhealthyMark{Reason: "earlier", Since: now, By: "test"}, false, now)
		return b
	}
	typ := reflect.TypeFor[BMMPatch]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		var p BMMPatch
		reflect.ValueOf(&p).Elem().Field(i).Set(sampleValue(t, f.Type))
		if got := (BMMPatch{}).Merge(p); !reflect.DeepEqual(got, p) {
			t.Errorf("%s: Merge onto an empty patch dropped it: %+v", f.Name, got)
		}
		if got := p.Merge(BMMPatch{}); !reflect.DeepEqual(got, p) {
			t.Errorf("%s: Merge of an empty patch cleared it: %+v", f.Name, got)
		}
		// The key, not a fact; and what a node showed, which the ledger
		// acts on (workflows/cluster record) but does not keep.
		if f.Name == "BMM" || f.Name == "NodeLabels" {
			continue
		}
		changed := false
		for _, base := range []func() model.BMM{bare, full} {
			b := base()
			ApplyPatch(&b, p, now)
			changed = changed || !reflect.DeepEqual(b, base())
		}
		if !changed {
			t.Errorf("%s: the ledger's ApplyPatch ignores it (internal/api/patch_apply.go)", f.Name)
		}
	}
}
