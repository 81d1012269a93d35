package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// `starter keyset`: a cluster's access keysets, kept by its ledger
// (docs/keysets.md). A file is checked here, every problem at once,
// before anything connects; the ledger checks it again against the
// cluster's other keysets before it writes. Output names keys by
// fingerprint only.

func (a *app) keysetCmd() *cobra.Command {
	return group("keyset", "Access keysets: who may log in to the servers (bmm) and their BMCs (bmc), until when",
		a.keysetWriteCmd("create", api.UpdateKeysetCreate, "Create a keyset from a file (refused if its name exists)"),
		a.keysetWriteCmd("update", api.UpdateKeysetUpdate, "Replace a keyset with the content of a file (same name and kind)"),
		a.keysetDeleteCmd(), a.keysetApplyCmd(), a.keysetListCmd(), a.keysetShowCmd())
}

func (a *app) keysetWriteCmd(verb, update, short string) *cobra.Command {
	var cluster, file, format string
	cmd := &cobra.Command{
		Use:   verb + " --cluster C --file KEYSET.yaml",
		Short: short,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, check := keysetFile(cluster, file, time.Now())
			return a.withClient(cmd, time.Minute, check, func(ctx context.Context, c client.Client) error {
				var k keyset.Keyset
				req := api.KeysetRequest{Keyset: spec, By: operator()}
				if err := updateLedger(ctx, c, cluster, update, req, &k, verb+" of keyset "+spec.Name); err != nil {
					return err
				}
				note, err := applyAfterWrite(ctx, c, cluster, k)
				if err != nil {
					return err
				}
				return writeKeyset(cmd, format, keysetView{Keyset: k}, time.Now(), note)
			})
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&file, "file", "", "the keyset, YAML or JSON (docs/keysets.md)")
	outputFlag(cmd, &format)
	return cmd
}

// keysetFile reads and checks a keyset file at now, naming every problem
// of the flags and the file at once.
func keysetFile(cluster, file string, now time.Time) (keyset.Spec, error) {
	var errs []error
	if cluster == "" {
		errs = append(errs, errors.New("--cluster is required"))
	}
	if file == "" {
		return keyset.Spec{}, errors.Join(append(errs, errors.New("--file is required: the keyset, YAML or JSON (docs/keysets.md)"))...)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return keyset.Spec{}, errors.Join(append(errs, fmt.Errorf("read keyset: %w", err))...)
	}
	s, err := keyset.Parse(data, now)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s is not valid:\n%w", file, err))
	}
	return s, errors.Join(errs...)
}

func (a *app) keysetDeleteCmd() *cobra.Command {
	var cluster, name, format string
	check := func() error { return required(flag{"cluster", cluster}, flag{"name", name}) }
	cmd := a.clientCmd("delete --cluster C --name KEYSET", "Delete a keyset",
		time.Minute, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			var k keyset.Keyset
			req := api.KeysetDeleteRequest{Name: name, By: operator()}
			if err := updateLedger(ctx, c, cluster, api.UpdateKeysetDelete, req, &k, "delete of keyset "+name); err != nil {
				return err
			}
			note, err := applyAfterWrite(ctx, c, cluster, k)
			if err != nil {
				return err
			}
			return output.Write(cmd.OutOrStdout(), format, k, func() output.Table {
				t := output.Table{Header: []string{"keyset", "kind", "members", "result"},
					Rows: [][]string{{k.Name, string(k.Kind), strings.Join(k.Members(), ", "), "deleted"}}}
				if note != "" {
					t.Notes = []string{note}
				}
				return t
			})
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&name, "name", "", "the keyset to delete")
	outputFlag(cmd, &format)
	return cmd
}

func (a *app) keysetListCmd() *cobra.Command {
	var cluster, format string
	check := func() error { return required(flag{"cluster", cluster}) }
	cmd := a.clientCmd("list --cluster C", "List the cluster's keysets",
		time.Minute, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			list, err := ledgerKeysets(ctx, c, cluster)
			if err != nil {
				return err
			}
			now := time.Now()
			return output.Write(cmd.OutOrStdout(), format, list, func() output.Table {
				t := output.Table{Header: []string{"name", "kind", "level", "members", "expiration", "state", "updated", "by"}}
				for _, k := range list {
					t.Rows = append(t.Rows, []string{k.Name, string(k.Kind), k.Level(), fmt.Sprint(len(k.Members())),
						k.Expiration.UTC().Format(time.RFC3339), expiryState(k, now), k.Updated.UTC().Format(time.RFC3339), dash(k.By)})
				}
				if len(list) == 0 {
					t.Notes = append(t.Notes, "no keysets: `starter keyset create --cluster "+cluster+" --file KEYSET.yaml`")
				}
				return t
			})
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	outputFlag(cmd, &format)
	return cmd
}
