package output

import (
	"bytes"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	v := []map[string]string{{"name": "rack1-c1"}}
	tbl := func() Table { return Table{Header: []string{"name", "rack"}, Rows: [][]string{{"rack1-c1", "rack1"}}} }
	var b bytes.Buffer
	if err := Write(&b, "json", v, tbl); err != nil || !strings.Contains(b.String(), `"name": "rack1-c1"`) {
		t.Fatalf("json: %v %q", err, b.String())
	}
	b.Reset()
	if err := Write(&b, "yaml", v, tbl); err != nil || !strings.Contains(b.String(), "- name: rack1-c1") {
		t.Fatalf("yaml: %v %q", err, b.String())
	}
	b.Reset()
	if err := Write(&b, "table", v, tbl); err != nil || !strings.HasPrefix(b.String(), "NAME      RACK\nrack1-c1  rack1") {
		t.Fatalf("table: %v %q", err, b.String())
	}
	if err := Check("xml"); err == nil || !strings.Contains(err.Error(), "table, json, yaml") {
		t.Fatalf("Check(xml) = %v", err)
	}
}

// A note follows the table and leaves its columns as narrow as its rows.
func TestNotesDoNotWidenColumns(t *testing.T) {
	var b bytes.Buffer
	tbl := Table{Header: []string{"unit", "state"}, Rows: [][]string{{"rack1", "Paused"}},
		Notes: []string{"guard capacity SHORT: rack1: a message longer than any column"}}
	if err := WriteTable(&b, tbl); err != nil {
		t.Fatal(err)
	}
	want := "UNIT   STATE\nrack1  Paused\nguard capacity SHORT: rack1: a message longer than any column\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}
