package api

import "reflect"

// Merge lays over's set fields on p: a set pointer or slice replaces p's, a
// true flag stays true. It walks the fields themselves, so a field added to
// BMMPatch is merged without anyone listing it (internal/api/patch_fields_test.go
// checks that the ledger applies it too).
func (p BMMPatch) Merge(over BMMPatch) BMMPatch {
	dst := reflect.ValueOf(&p).Elem()
	src := reflect.ValueOf(over)
	for i := range src.NumField() {
		if f := src.Field(i); !f.IsZero() {
			dst.Field(i).Set(f)
		}
	}
	return p
}
