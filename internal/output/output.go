// Package output renders the starter's read commands as a table, JSON or
// YAML (-o table|json|yaml).
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// Formats accepted by -o.
var Formats = []string{"table", "json", "yaml"}

// Check validates a -o value before anything runs.
func Check(format string) error {
	for _, f := range Formats {
		if f == format {
			return nil
		}
	}
	return fmt.Errorf("-o %q: allowed %s", format, strings.Join(Formats, ", "))
}

// Table is a header and rows for the table format. Notes follow the
// table, one a line, outside its columns: a long line there would
// otherwise widen a column of every row.
type Table struct {
	Header []string
	Rows   [][]string
	Notes  []string
}

// Write renders v as JSON or YAML, or t as an aligned table.
func Write(w io.Writer, format string, v any, t func() Table) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "table", "":
		return WriteTable(w, t())
	}
	return Check(format)
}

// WriteTable writes an aligned table with upper-case headers.
func WriteTable(w io.Writer, t Table) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	up := make([]string, len(t.Header))
	for i, h := range t.Header {
		up[i] = strings.ToUpper(h)
	}
	fmt.Fprintln(tw, strings.Join(up, "\t"))
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range t.Notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}
