package keyset

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// NodePodLabelValue is the value of a keyset pod's NodePodLabel for node:
// the node's name when it fits a label value (63 characters; a node name
// is a DNS subdomain, whose characters a label value allows), else its
// first 46 characters and 16 hex digits of its SHA-256 — still readable,
// still one per node, and always a valid label value (a node name may be
// 253 characters, which the API would refuse as a label).
func NodePodLabelValue(node string) string {
	const max = 63
	if len(node) <= max {
		return node
	}
	h := sha256.Sum256([]byte(node))
	// A label value ends with an alphanumeric character: the hash does,
	// and the cut name must not end with '.' or '-' before the separator.
	head := strings.TrimRight(node[:max-17], ".-_")
	return head + "-" + hex.EncodeToString(h[:8])
}
