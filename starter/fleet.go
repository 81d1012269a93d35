package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"sigs.k8s.io/yaml"
)

// `starter fleet`: a named list of registered clusters and a release
// rolled over them in waves (docs/fleet.md). The fleet is a workflow
// (fleet:<name>) that holds its spec and runs one rollout at a time; each
// site's upgrade is that site's own RuntimeUpgradeWorkflow.

func (a *app) fleetCmd() *cobra.Command {
	return group("fleet", "Roll a release over a fleet of sites in waves: a canary, a bake after each wave, a halt when a site goes wrong",
		a.fleetCreateCmd(), a.fleetPlanCmd(), a.fleetStartCmd(), a.fleetStatusCmd(),
		a.fleetSteerCmd("pause", api.UpdateFleetPause, "Start no new site; running sites go on (--sites: they pause too)"),
		a.fleetSteerCmd("continue", api.UpdateContinue, "Go on past a pause or a halt (the halting sites are acknowledged)"),
		a.fleetSteerCmd("cancel", api.UpdateCancel, "End the rollout: no new site starts (--sites: cancel the running sites' upgrades too)"))
}

// specFlags are a fleet's spec on the command line, or a file.
type specFlags struct {
	name, file, canary, waves string
	clusters                  []string
	waveSize, bake            int
}

func (f *specFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.name, "name", "", "the fleet's name")
	cmd.Flags().StringVar(&f.file, "file", "", "the fleet's spec, YAML or JSON (docs/fleet.md); flags given override it")
	cmd.Flags().StringSliceVar(&f.clusters, "clusters", nil, "the fleet's registered clusters, in rollout order (comma-separated)")
	cmd.Flags().StringVar(&f.canary, "canary", "", "the canary sites, upgraded first, alone (comma-separated)")
	cmd.Flags().IntVar(&f.waveSize, "wave-size", 0, "after the canary, this many sites at a time")
	cmd.Flags().StringVar(&f.waves, "waves", "", "or the waves after the canary, named: sites comma-separated, waves by ';' (\"b,c;d,e\")")
	cmd.Flags().IntVar(&f.bake, "bake-minutes", 0, "how long a finished wave runs before the next starts")
}

// spec is the file's spec with the flags over it; every problem of the
// flags and the file at once.
func (f *specFlags) spec(cmd *cobra.Command) (fleet.Spec, error) {
	var s fleet.Spec
	var errs []error
	if f.file != "" {
		data, err := os.ReadFile(f.file)
		if err == nil {
			err = yaml.UnmarshalStrict(data, &s)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--file %s: %w", f.file, err))
		}
	}
	set := cmd.Flags().Changed
	if set("name") {
		s.Name = f.name
	}
	if set("clusters") {
		s.Clusters = f.clusters
	}
	if set("canary") {
		s.Canary = split(f.canary, ",")
	}
	if set("wave-size") {
		s.WaveSize = f.waveSize
	}
	if set("waves") {
		s.Waves = nil
		for _, w := range split(f.waves, ";") {
			s.Waves = append(s.Waves, split(w, ","))
		}
	}
	if set("bake-minutes") {
		s.BakeMinutes = f.bake
	}
	// Its shape now, before anything connects; its clusters against the
	// registered ones once connected.
	if err := fleet.Check(s, s.Clusters); err != nil {
		errs = append(errs, fmt.Errorf("fleet %q refused:\n%w", s.Name, err))
	}
	return s, errors.Join(errs...)
}

func split(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (a *app) fleetCreateCmd() *cobra.Command {
	var sf specFlags
	var format string
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "create --name N --clusters A,B,C [--canary A] (--wave-size K | --waves \"B;C\") [--bake-minutes M]",
		Short: "Create a fleet, or replace its spec while no rollout runs; prints its plan",
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, check := sf.spec(cmd)
			return a.withClient(cmd, time.Minute, check, func(ctx context.Context, c client.Client) error {
				registered, err := registeredClusters(ctx, c)
				if err != nil {
					return err
				}
				if err := fleet.Check(spec, registered); err != nil {
					return fmt.Errorf("fleet %s refused:\n%w", spec.Name, err)
				}
				verb, err := createOrReplace(ctx, c, spec, api.FleetTuning{WatchEvery: every})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "fleet %s %s (workflow %s)\n", spec.Name, verb, api.FleetID(spec.Name))
				return writeFleetPlan(cmd.OutOrStdout(), format, fleetPlanOf(ctx, c, spec, ""))
			})
		},
	}
	sf.register(cmd)
	cmd.Flags().DurationVar(&every, "watch-every", fleet.DefaultWatchEvery, "how often the fleet reads its sites (a site's change is seen within it); set when the fleet is created")
	outputFlag(cmd, &format)
	return cmd
}

// createOrReplace starts the fleet's run, or gives a running one the spec
// (refused during a rollout): running create again converges.
func createOrReplace(ctx context.Context, c client.Client, spec fleet.Spec, tuning api.FleetTuning) (string, error) {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: api.FleetID(spec.Name), TaskQueue: api.TaskQueue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            fmt.Sprintf("Fleet %s: %d sites", spec.Name, len(spec.Clusters)),
	}, api.FleetWorkflowName, api.FleetInput{Spec: spec, Tuning: tuning})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	switch {
	case err == nil:
		return "created", nil
	case !errors.As(err, &started):
		return "", err
	}
	var st api.FleetStatus
	if err := updateFleet(ctx, c, spec.Name, api.UpdateFleetSpec, api.FleetSpecRequest{Spec: spec, By: operator()}, &st); err != nil {
		return "", err
	}
	return "updated", nil
}

// updateFleet sends an Update to the fleet's run; a refusal exits 1 with
// the fleet's reason.
func updateFleet(ctx context.Context, c client.Client, name, update string, arg, out any) error {
	opts := client.UpdateWorkflowOptions{WorkflowID: api.FleetID(name), UpdateName: update, WaitForStage: client.WorkflowUpdateStageCompleted}
	if arg != nil {
		opts.Args = []any{arg}
	}
	h, err := c.UpdateWorkflow(ctx, opts)
	if err == nil {
		err = h.Get(ctx, out)
	}
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return fmt.Errorf("no fleet %s (no running %s): `starter fleet create --name %s …` first", name, api.FleetID(name), name)
	case err != nil:
		return withCode(exitError, fmt.Errorf("fleet %s: %s refused: %s", name, update, temporalerr.Message(err)))
	}
	return nil
}

func (a *app) fleetStartCmd() *cobra.Command {
	var name, version, format string
	var st strategyFlags
	var drain, vms time.Duration
	var wait bool
	cmd := &cobra.Command{
		Use:   "start --name N --version V [strategy flags]",
		Short: "Roll a release over the fleet; each site's upgrade is checked as `upgrade start` checks it first",
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Every problem of the flags at once, before anything connects.
			s := st.value()
			check := errors.Join(required(flag{"name", name}, flag{"version", version}), s.Validate())
			if version != "" {
				if _, err := model.ParseVersion(version); err != nil {
					check = errors.Join(check, fmt.Errorf("--version %q: %w", version, err))
				}
			}
			return a.withClient(cmd, 0, check, func(ctx context.Context, c client.Client) error {
				fs, err := fleetStatus(ctx, c, name)
				if err != nil {
					return err
				}
				if err := preflightSites(ctx, c, fs.Spec, version, s); err != nil {
					return err
				}
				req := api.FleetStartRequest{TargetVersion: version, UpdateStrategy: s, DrainTimeout: drain, VMShutdownTimeout: vms, By: operator()}
				if err := updateFleet(ctx, c, name, api.UpdateFleetStart, req, &fs); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "rollout of %s over fleet %s started: %d sites in %d waves\n", version, name, len(fs.Rollout.Sites), len(fs.Rollout.Waves))
				if !wait {
					return writeFleet(cmd.OutOrStdout(), format, fs, time.Now())
				}
				return watchFleet(ctx, cmd, c, name, format)
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the fleet's name")
	cmd.Flags().StringVar(&version, "version", "", "target runtime version, e.g. 4.2.0")
	st.register(cmd)
	cmd.Flags().DurationVar(&drain, "drain-timeout", 0, "drain limit per server (default: each site's)")
	cmd.Flags().DurationVar(&vms, "vm-shutdown-timeout", 0, "VM shutdown limit per server (default: each site's)")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the rollout until it ends or halts, a line per change")
	outputFlag(cmd, &format)
	return cmd
}

// preflightSites plans each site's upgrade as `upgrade start` does and
// refuses the rollout naming every site's problem at once: nothing starts
// on a fleet where one site would refuse.
func preflightSites(ctx context.Context, c client.Client, spec fleet.Spec, version string, s model.UpdateStrategy) error {
	var errs []error
	for _, cl := range spec.Clusters {
		st, err := clusterStateWith(ctx, c, cl)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.UpgradeTarget == "" && st.Cluster.RuntimeVersion == version {
			continue // already there: the fleet does not start it
		}
		if _, err := upgradeplan.Build(st.Cluster, version, s, st.UpgradeTarget == version, planOptions(st, version)...); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cl, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("rollout of %s refused:\n%w", version, errors.Join(errs...))
	}
	return nil
}

func fleetStatus(ctx context.Context, c client.Client, name string) (api.FleetStatus, error) {
	return query[api.FleetStatus](ctx, c, api.FleetID(name), api.QueryStatus, func(err error) error {
		return fmt.Errorf("no fleet %s: %w (`starter fleet create --name %s …` first)", name, err, name)
	})
}

func (a *app) fleetSteerCmd(verb, update, short string) *cobra.Command {
	var name, format string
	var sites bool
	cmd := &cobra.Command{
		Use:   verb + " --name N",
		Short: short,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withClient(cmd, 30*time.Second, required(flag{"name", name}), func(ctx context.Context, c client.Client) error {
				var arg any
				switch update {
				case api.UpdateFleetPause:
					arg = api.FleetPauseRequest{Sites: sites, By: operator()}
				case api.UpdateCancel:
					arg = api.FleetCancelRequest{Sites: sites, By: operator()}
				}
				var fs api.FleetStatus
				if err := updateFleet(ctx, c, name, update, arg, &fs); err != nil {
					return err
				}
				return writeFleet(cmd.OutOrStdout(), format, fs, time.Now())
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the fleet's name")
	switch update {
	case api.UpdateCancel:
		cmd.Flags().BoolVar(&sites, "sites", false, "also cancel the upgrades of the sites running (each stops after its servers in flight)")
	case api.UpdateFleetPause:
		cmd.Flags().BoolVar(&sites, "sites", false, "also pause the upgrades of the sites running, before their next group or rack (continue continues them)")
	}
	outputFlag(cmd, &format)
	return cmd
}
