package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/temporalconn"
	"github.com/rackroll/rackroll/internal/version"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// app holds what every command shares: the connection flags.
type app struct {
	conn temporalconn.Flags
}

func newRoot() *cobra.Command {
	a := &app{}
	root := &cobra.Command{
		Use:   "starter",
		Short: "Run and steer rackroll's bare-metal lifecycle workflows",
		Long: `starter drives rackroll: validate a site inventory, register a cluster,
run runtime upgrades rack by rack, act on bare-metal machines, and (when built
with the lab) run the lab.
Connection flags follow the temporal CLI and the TEMPORAL_* environment.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	a.conn.Register(root.PersistentFlags())
	root.AddCommand(
		&cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Args:  cobra.NoArgs,
			Run: func(cmd *cobra.Command, _ []string) {
				fmt.Fprintln(cmd.OutOrStdout(), version.String())
			},
		},
		group("cluster", "Validate, register and show clusters",
			a.clusterValidateCmd(), a.clusterRegisterCmd(), a.clusterReplaceRolesCmd(), a.clusterShowCmd(), a.clusterHistoryCmd(), a.clusterResumeCmd()),
		a.leaseCmd(),
		a.keysetCmd(),
		a.fleetCmd(),
		group("remediation", "Follow the health monitor and automatic remediations", a.remediationListCmd(), a.remediationShowCmd()),
		a.upgradeCmd(),
		a.bmmCmd(),
		a.siteCmd(),
		a.codecServerCmd(),
		a.selfUpgradeCmd(),
	)
	root.AddCommand(a.labCmds()...) // `lab` and `demo`: lab_build.go or lab_none.go
	noArgs(root)
	return root
}

// noArgs makes every command refuse positional arguments: all input is
// flags, so a stray word is a mistake (a parent keeps cobra's "unknown
// command" with its suggestions).
func noArgs(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		if !sub.HasSubCommands() && sub.Args == nil {
			sub.Args = cobra.NoArgs
		}
		noArgs(sub)
	}
}

// dial connects to Temporal with the global flags and environment.
func (a *app) dial() (client.Client, error) {
	opts, err := a.conn.ClientOptions()
	if err != nil {
		return nil, err
	}
	c, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w (is the dev server up? `make dev-server`)", opts.HostPort, err)
	}
	return c, nil
}

// outputFlag adds -o to a read command.
func outputFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVarP(dst, "output", "o", "table", "output format: table, json or yaml")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if err := output.Check(*dst); err != nil {
			return err
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// flag is a required flag's name and value, for required.
type flag struct{ name, value string }

// required refuses, before anything connects, a command missing flags it
// cannot do without, naming every one of them.
func required(flags ...flag) error {
	var missing []string
	for _, f := range flags {
		if f.value == "" {
			missing = append(missing, "--"+f.name)
		}
	}
	switch len(flags) {
	case 1:
		if len(missing) == 1 {
			return fmt.Errorf("%s is required", missing[0])
		}
		return nil
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(flags))
	for i, f := range flags {
		names[i] = "--" + f.name
	}
	return fmt.Errorf("%s and %s are required", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// session dials Temporal and bounds the command's context by timeout
// (0: unbounded); done closes both.
func (a *app) session(parent context.Context, timeout time.Duration) (client.Client, context.Context, func(), error) {
	c, err := a.dial()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := parent, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, timeout)
	}
	return c, ctx, func() { cancel(); c.Close() }, nil
}

// withClient is a command's body after its input checks: check (the
// first failed one, or nil) refuses before anything connects; otherwise
// body runs with a Temporal client and the command's context bounded by
// timeout (0: unbounded), both closed when it returns.
func (a *app) withClient(cmd *cobra.Command, timeout time.Duration, check error, body func(context.Context, client.Client) error) error {
	if check != nil {
		return check
	}
	c, ctx, done, err := a.session(cmd.Context(), timeout)
	if err != nil {
		return err
	}
	defer done()
	return body(ctx, c)
}

// clientCmd is a command whose work needs Temporal: check, called once the
// flags are parsed, refuses bad input before anything connects (withClient);
// then run has a client and the context bounded by timeout (0: unbounded).
func (a *app) clientCmd(use, short string, timeout time.Duration, check func() error, run func(ctx context.Context, cmd *cobra.Command, c client.Client) error) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, RunE: func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd, timeout, check(), func(ctx context.Context, c client.Client) error { return run(ctx, cmd, c) })
	}}
}

// query runs query name on workflow id and decodes its answer; explain
// says what a failed query means (the workflow is not running, mostly).
func query[T any](ctx context.Context, c client.Client, id, name string, explain func(error) error) (T, error) {
	var st T
	v, err := askWorkflow(ctx, c, id, name)
	if err != nil {
		return st, explain(err)
	}
	return st, v.Get(&st)
}

// group is a command that only holds subcommands.
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short}
	cmd.AddCommand(subs...)
	return cmd
}
