package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// keysetView is a keyset as `keyset show` prints it: every BMM's outcome
// (pending where none is recorded) — on its BMC for a BMC keyset, on its
// node for a BMM one — and whether it is a deleted BMC keyset whose
// accounts are being disabled.
type keysetView struct {
	keyset.Keyset
	Deleted bool             `json:"deleted,omitempty"`
	BMCs    []keyset.Outcome `json:"bmcs,omitempty"`
	Nodes   []keyset.Outcome `json:"nodes,omitempty"`
}

// viewOf is the keyset name of the ledger st, live or deleted.
func viewOf(st api.ClusterState, name string) (keysetView, bool) {
	k, ok := keyset.Find(st.Keysets, name)
	deleted := false
	if !ok {
		if k, ok = keyset.Find(st.RemovedKeysets, name); !ok {
			return keysetView{}, false
		}
		deleted = true
	}
	v := keysetView{Keyset: k, Deleted: deleted}
	var bmms []string
	for _, b := range st.Cluster.BMMs {
		bmms = append(bmms, b.Name)
	}
	if k.Kind == keyset.KindBMC {
		v.BMCs = keyset.OutcomesFor(k, bmms)
	} else {
		v.Nodes = keyset.OutcomesFor(k, bmms)
	}
	v.Outcomes = nil // shown as BMCs or nodes, pending included
	return v, true
}

func (a *app) keysetShowCmd() *cobra.Command {
	var cluster, name, format string
	check := func() error { return required(flag{"cluster", cluster}, flag{"name", name}) }
	cmd := a.clientCmd("show --cluster C --name KEYSET", "Show a keyset: its users (key fingerprints) or BMC accounts (Secret references) and each node's or BMC's outcome",
		time.Minute, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			st, err := ledgerState(ctx, c, cluster)
			if err != nil {
				return err
			}
			v, ok := viewOf(st, name)
			if !ok {
				var names []string
				for _, x := range st.Keysets {
					names = append(names, x.Name)
				}
				return fmt.Errorf("cluster %s has no keyset %q (it has: %s)", cluster, name, dash(strings.Join(names, ", ")))
			}
			return writeKeyset(cmd, format, v, time.Now())
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&name, "name", "", "the keyset to show")
	outputFlag(cmd, &format)
	return cmd
}

// writeKeyset shows one keyset, redacted again in case a ledger ever
// answered with a key: members in a table, the keyset's facts, each BMC's
// outcome and notes below.
func writeKeyset(cmd *cobra.Command, format string, v keysetView, now time.Time, notes ...string) error {
	v.Keyset = v.Redacted()
	k := v.Keyset
	return output.Write(cmd.OutOrStdout(), format, v, func() output.Table {
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
		facts := fmt.Sprintf("keyset %s (%s): expires %s (%s); updated %s by %s", k.Name, k.Kind,
			k.Expiration.UTC().Format(time.RFC3339), expiryState(k, now), k.Updated.UTC().Format(time.RFC3339), dash(k.By))
		if v.Deleted {
			facts = fmt.Sprintf("keyset %s (%s): deleted %s by %s; its accounts are removed from every BMC (disabled where a BMC cannot remove one)", k.Name, k.Kind,
				k.Updated.UTC().Format(time.RFC3339), dash(k.By))
		}
		t.Notes = []string{facts}
		if k.Description != "" {
			t.Notes = append(t.Notes, "description: "+k.Description)
		}
		// An expired keyset's access is removed at its expiration: its
		// outcomes say where (removed from a BMC, or disabled, removed
		// from a node).
		expired, gone := "", v.Deleted
		if !v.Deleted && k.Expired(now) {
			expired, gone = "expired at "+k.Expiration.UTC().Format(time.RFC3339)+": ", true
		}
		for _, o := range v.BMCs {
			t.Notes = append(t.Notes, "bmc of "+o.BMM+": "+outcomeText(o))
		}
		if len(v.BMCs) > 0 {
			t.Notes = append(t.Notes, expired+outcomeCounts(v.BMCs, gone, "BMCs"))
		}
		for _, o := range v.Nodes {
			t.Notes = append(t.Notes, "node of "+o.BMM+": "+outcomeText(o))
		}
		if len(v.Nodes) > 0 {
			t.Notes = append(t.Notes, expired+outcomeCounts(v.Nodes, gone, "nodes"))
		}
		return output.Table{Header: t.Header, Rows: t.Rows, Notes: append(t.Notes, notes...)}
	})
}

// outcomeText is one BMM's outcome in a line.
func outcomeText(o keyset.Outcome) string {
	switch o.State {
	case keyset.Applied:
		if o.Role == "" { // a node: the users of the BMM keysets
			return "applied at " + o.At.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("applied (%s) at %s", o.Role, o.At.UTC().Format(time.RFC3339))
	case keyset.Disabled:
		return "disabled at " + o.At.UTC().Format(time.RFC3339)
	case keyset.Removed:
		return "removed at " + o.At.UTC().Format(time.RFC3339)
	case keyset.Failed:
		return fmt.Sprintf("failed at %s: %s", o.At.UTC().Format(time.RFC3339), o.Reason)
	}
	return string(o.State)
}

// outcomeCounts sums the outcomes up: "applied on 3 of 4 BMCs, 1 failed"
// (what: BMCs or nodes); for a keyset whose access is gone (deleted or
// expired) where it was taken away: "removed from 3 of 4 BMCs, 1
// disabled" (a BMC that could only disable its account), "removed from 4
// of 5 nodes, 1 not yet removed".
func outcomeCounts(outs []keyset.Outcome, gone bool, what string) string {
	n := map[keyset.State]int{}
	for _, o := range outs {
		n[o.State]++
	}
	done, verb := n[keyset.Applied], "applied on"
	if gone {
		done, verb = n[keyset.Removed], "removed from"
	}
	line := fmt.Sprintf("%s %d of %d %s", verb, done, len(outs), what)
	for _, s := range []keyset.State{keyset.Disabled, keyset.Failed, keyset.Pending} {
		if n[s] > 0 {
			line += fmt.Sprintf(", %d %s", n[s], s)
		}
	}
	if gone && n[keyset.Applied] > 0 {
		// Applied before the end, and no run has taken it away there yet.
		line += fmt.Sprintf(", %d not yet %s", n[keyset.Applied], strings.Fields(verb)[0])
	}
	return line
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

// keysetsLine is the keysets under `cluster show` (st's): each with its
// kind, level, members, whether it is active and on how many BMCs (a BMC
// keyset) or nodes (a BMM keyset) it is applied ("" when the cluster has none).
func keysetsLine(st api.ClusterState, now time.Time) string {
	if len(st.Keysets) == 0 {
		return ""
	}
	parts := make([]string, len(st.Keysets))
	for i, k := range st.Keysets {
		state, expired := "active", k.Expired(now)
		if expired {
			state = "expired"
		}
		v, _ := viewOf(st, k.Name)
		applied := outcomeCounts(v.Nodes, expired, "nodes")
		if k.Kind == keyset.KindBMC {
			applied = outcomeCounts(v.BMCs, expired, "BMCs")
		}
		parts[i] = fmt.Sprintf("%s (%s %s, %d, %s, %s)", k.Name, k.Kind, k.Level(), len(k.Members()), state, applied)
	}
	return "keysets: " + strings.Join(parts, "; ") + " — `starter keyset show`"
}
