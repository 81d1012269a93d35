package keyset

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestNodePodLabelValueIsAlwaysALabel(t *testing.T) {
	long := strings.Repeat("rack1-compute.", 18) + "example.org" // 263 > 253 would be refused as a node; cut below
	long = long[:253]
	cut := strings.Repeat("a", 45) + ".-b" + strings.Repeat("c", 30)
	for _, tc := range []struct{ node, want string }{
		{"rack1-c1", "rack1-c1"},
		{strings.Repeat("n", 63), strings.Repeat("n", 63)},
		{long, ""},
		{cut, ""},
		{strings.Repeat("n", 64), ""},
	} {
		got := NodePodLabelValue(tc.node)
		if errs := validation.IsValidLabelValue(got); len(errs) > 0 {
			t.Errorf("%q: %q is not a label value: %v", tc.node, got, errs)
		}
		if tc.want != "" && got != tc.want {
			t.Errorf("%q: %q, want it kept", tc.node, got)
		}
		if len(tc.node) > 63 && (!strings.HasPrefix(tc.node, strings.TrimRight(got[:len(got)-17], ".-_")) || len(got) > 63) {
			t.Errorf("%q: %q does not start with the node's name", tc.node, got)
		}
	}
	if NodePodLabelValue(long) == NodePodLabelValue(long[:252]+"x") {
		t.Error("two long names with the same head got the same value")
	}
}
