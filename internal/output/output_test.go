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
