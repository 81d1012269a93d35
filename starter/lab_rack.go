//go:build lab

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// labRackCmd racks servers of a running lab that its inventory's
// lab.unracked held back, through the lab's admin endpoint, as
// `lab fault` reaches it.
func (a *app) labRackCmd() *cobra.Command {
	var inventory, outInventory, format string
	var names []string
	cmd := &cobra.Command{
		Use:   "rack --inventory lab.yaml --rack NAME [--rack NAME...] [--out-inventory FILE]",
		Short: "Rack and install servers of a running lab that were not racked yet (lab.unracked)",
		Long: `rack brings up servers the lab's inventory lists under lab.unracked, as a site's
installer brings up a delivered server: its BMC starts answering (the profile
the inventory names), the machine boots the runtime the installer wrote and
its kubelet registers the Node, which turns Ready, labelled management or
compute. No control-plane role changes: register the grown inventory
(--out-inventory writes it: the site as racked now, with the new BMC
addresses) and run 'cluster register --plan', 'cluster register' and
'cluster replace-roles --wait' (docs/upgrade.md#adding-racks-or-servers).
--rack names a rack or a server; repeat it for more.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			admin, err := labAdmin(inventory)
			if err != nil {
				return err
			}
			if len(names) == 0 {
				return fmt.Errorf("--rack is required: a rack or server of lab.unracked ('starter lab status' lists them)")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			var res lab.RackResult
			if err := labAdminCall(ctx, admin, http.MethodPost, "/rack", lab.RackRequest{Names: names}, &res); err != nil {
				return err
			}
			if outInventory != "" {
				var inv model.Inventory
				if err := labAdminCall(ctx, admin, http.MethodGet, "/inventory", nil, &inv); err != nil {
					return err
				}
				b, err := yaml.Marshal(&inv)
				if err != nil {
					return err
				}
				header := []byte("# Written by `starter lab rack`: the site as racked now, pointing at the running lab.\n")
				if err := os.WriteFile(outInventory, append(header, b...), 0o644); err != nil {
					return err
				}
			}
			return output.Write(cmd.OutOrStdout(), format, res, func() output.Table {
				t := output.Table{Header: []string{"racked", "rack", "joins as", "bmc profile", "bmc"}}
				for _, m := range res.Racked {
					t.Rows = append(t.Rows, []string{m.Name, m.Rack, m.Role, m.Profile, m.BMC})
				}
				return t
			})
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "", "inventory written by `starter lab up`")
	cmd.Flags().StringSliceVar(&names, "rack", nil, "rack or server to rack (repeatable)")
	cmd.Flags().StringVar(&outInventory, "out-inventory", "", "write the grown site's inventory here (the new servers' BMC addresses)")
	outputFlag(cmd, &format)
	return cmd
}

// labAdminCall sends in (when not nil) to the lab's admin endpoint and
// decodes the answer into out, or returns the lab's error.
func labAdminCall(ctx context.Context, admin, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, admin+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("lab admin %s: %w (is `starter lab up` still running?)", admin, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e map[string]string
		json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("%s", e["error"])
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
