package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// A ledger's continue-as-new input holds the inventory, the placement and
// the whole state: 666 KiB of JSON at 1,088 servers, most of it the same
// few field names again and again. Packed, it travels gzipped (a tenth of
// that), so that it stays far under Temporal's payload limit at any size a
// cluster may have (issue 52). A packed input says so by its carry header:
// MinReader selfupgrade.FormatPackedLedger, which an older build refuses
// (its Carry is a stub that makes it look) instead of misreading an input
// whose inventory it cannot see.

// packedLedger is what Packed holds.
type packedLedger struct {
	Inventory model.Inventory        `json:"inventory"`
	Placement []placement.Assignment `json:"placement"`
	Carry     *ClusterState          `json:"carry,omitempty"`
}

// Pack is in with its inventory, placement and carry gzipped into Packed,
// and minReader in its carry header.
func (in ClusterInput) Pack(minReader int) (ClusterInput, error) {
	raw, err := json.Marshal(packedLedger{Inventory: in.Inventory, Placement: in.Placement, Carry: in.Carry})
	if err != nil {
		return in, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		return in, err
	}
	if err := zw.Close(); err != nil {
		return in, err
	}
	out := ClusterInput{Packed: buf.Bytes(), Carry: &ClusterState{}, CarryHeader: in.CarryHeader,
		ContinueAsNewAfter: in.ContinueAsNewAfter, LeaseSweep: in.LeaseSweep}
	out.CarryHeader.MinReader = minReader
	return out, nil
}

// Unpacked is in with Packed opened into its inventory, placement and
// carry; an input that is not packed is itself.
func (in ClusterInput) Unpacked() (ClusterInput, error) {
	if len(in.Packed) == 0 {
		return in, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(in.Packed))
	if err != nil {
		return in, fmt.Errorf("the ledger's packed input: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return in, fmt.Errorf("the ledger's packed input: %w", err)
	}
	var p packedLedger
	if err := json.Unmarshal(raw, &p); err != nil {
		return in, fmt.Errorf("the ledger's packed input: %w", err)
	}
	out := in
	out.Inventory, out.Placement, out.Carry, out.Packed = p.Inventory, p.Placement, p.Carry, nil
	return out, nil
}
