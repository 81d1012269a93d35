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
		a.keysetDeleteCmd(), a.keysetListCmd(), a.keysetShowCmd())
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
				return writeKeyset(cmd, format, k, time.Now())
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
	cmd := &cobra.Command{
		Use:   "delete --cluster C --name KEYSET",
		Short: "Delete a keyset",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withClient(cmd, time.Minute, required(flag{"cluster", cluster}, flag{"name", name}), func(ctx context.Context, c client.Client) error {
				var k keyset.Keyset
				req := api.KeysetDeleteRequest{Name: name, By: operator()}
				if err := updateLedger(ctx, c, cluster, api.UpdateKeysetDelete, req, &k, "delete of keyset "+name); err != nil {
					return err
				}
				return output.Write(cmd.OutOrStdout(), format, k, func() output.Table {
					return output.Table{Header: []string{"keyset", "kind", "members", "result"},
						Rows: [][]string{{k.Name, string(k.Kind), strings.Join(k.Members(), ", "), "deleted"}}}
				})
			})
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&name, "name", "", "the keyset to delete")
	outputFlag(cmd, &format)
	return cmd
}

func (a *app) keysetListCmd() *cobra.Command {
	var cluster, format string
	cmd := &cobra.Command{
		Use:   "list --cluster C",
		Short: "List the cluster's keysets",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withClient(cmd, time.Minute, required(flag{"cluster", cluster}), func(ctx context.Context, c client.Client) error {
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
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	outputFlag(cmd, &format)
	return cmd
}

func (a *app) keysetShowCmd() *cobra.Command {
	var cluster, name, format string
	cmd := &cobra.Command{
		Use:   "show --cluster C --name KEYSET",
		Short: "Show a keyset: its users (key fingerprints) or BMC accounts (Secret references)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withClient(cmd, time.Minute, required(flag{"cluster", cluster}, flag{"name", name}), func(ctx context.Context, c client.Client) error {
				list, err := ledgerKeysets(ctx, c, cluster)
				if err != nil {
					return err
				}
				k, ok := keyset.Find(list, name)
				if !ok {
					var names []string
					for _, x := range list {
						names = append(names, x.Name)
					}
					return fmt.Errorf("cluster %s has no keyset %q (it has: %s)", cluster, name, dash(strings.Join(names, ", ")))
				}
				return writeKeyset(cmd, format, k, time.Now())
			})
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&name, "name", "", "the keyset to show")
	outputFlag(cmd, &format)
	return cmd
}

// writeKeyset shows one keyset, redacted again in case a ledger ever
// answered with a key: members in a table, the keyset's facts below.
func writeKeyset(cmd *cobra.Command, format string, k keyset.Keyset, now time.Time) error {
	k = k.Redacted()
	return output.Write(cmd.OutOrStdout(), format, k, func() output.Table {
		var t output.Table
		if k.Kind == keyset.KindBMC {
			t.Header = []string{"account", "role", "password secret", "description"}
			for _, a := range k.Accounts {
				r := a.PasswordSecretRef
				t.Rows = append(t.Rows, []string{a.Name, string(k.Role), r.Namespace + "/" + r.Name + " key " + r.Key, dash(a.Description)})
			}
		} else {
			t.Header = []string{"user", "privilege", "key type", "fingerprint", "description"}
			for _, u := range k.Users {
				t.Rows = append(t.Rows, []string{u.Name, string(k.PrivilegeLevel), u.KeyType, u.Fingerprint, dash(u.Description)})
			}
		}
		t.Notes = []string{
			fmt.Sprintf("keyset %s (%s): expires %s (%s); updated %s by %s", k.Name, k.Kind,
				k.Expiration.UTC().Format(time.RFC3339), expiryState(k, now), k.Updated.UTC().Format(time.RFC3339), dash(k.By)),
		}
		if k.Description != "" {
			t.Notes = append(t.Notes, "description: "+k.Description)
		}
		t.Notes = append(t.Notes, "kept by the ledger; not yet applied to servers or BMCs (docs/keysets.md#what-is-not-built-yet)")
		return t
	})
}

// expiryState says whether a keyset's access is still on at now.
func expiryState(k keyset.Keyset, now time.Time) string {
	if k.Expired(now) {
		return "expired"
	}
	return "active, " + k.Expiration.Sub(now).Round(time.Minute).String() + " left"
}

// ledgerKeysets queries the cluster's ledger for its keysets (redacted).
func ledgerKeysets(ctx context.Context, c client.Client, cluster string) ([]keyset.Keyset, error) {
	return query[[]keyset.Keyset](ctx, c, api.ClusterID(cluster), api.QueryKeysets, func(err error) error {
		return fmt.Errorf("cluster %s: %w (registered? `starter cluster register --inventory FILE`)", cluster, err)
	})
}

// keysetsLine is the keysets under `cluster show`: each with its kind,
// level, members and whether it is active ("" when the cluster has none).
func keysetsLine(list []keyset.Keyset, now time.Time) string {
	if len(list) == 0 {
		return ""
	}
	parts := make([]string, len(list))
	for i, k := range list {
		state := "active"
		if k.Expired(now) {
			state = "expired"
		}
		parts[i] = fmt.Sprintf("%s (%s %s, %d, %s)", k.Name, k.Kind, k.Level(), len(k.Members()), state)
	}
	return "keysets (not yet applied to servers or BMCs): " + strings.Join(parts, "; ") + " — `starter keyset show`"
}
