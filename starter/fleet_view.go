package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

func (a *app) fleetPlanCmd() *cobra.Command {
	var name, version, format string
	cmd := a.clientCmd("plan --name N [--version V]", "Show the fleet's waves and each site's version (with --version: which sites a rollout of V would start)",
		time.Minute, func() error { return required(flag{"name", name}) },
		func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			fs, err := fleetStatus(ctx, c, name)
			if err != nil {
				return err
			}
			return writeFleetPlan(cmd.OutOrStdout(), format, fleetPlanOf(ctx, c, fs.Spec, version))
		})
	cmd.Flags().StringVar(&name, "name", "", "the fleet's name")
	cmd.Flags().StringVar(&version, "version", "", "a target version: say which sites it would start")
	outputFlag(cmd, &format)
	return cmd
}

func (a *app) fleetStatusCmd() *cobra.Command {
	var name, format string
	var watch bool
	cmd := a.clientCmd("status --name N [--watch]", "Show the fleet's rollout: its state, wave, bake, halt and each site's verdict",
		0, func() error { return required(flag{"name", name}) },
		func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			if watch {
				return watchFleet(ctx, cmd, c, name, format)
			}
			fs, err := fleetStatus(ctx, c, name)
			if err != nil {
				return err
			}
			return writeFleet(cmd.OutOrStdout(), format, fs, time.Now())
		})
	cmd.Flags().StringVar(&name, "name", "", "the fleet's name")
	cmd.Flags().BoolVar(&watch, "watch", false, "follow the rollout until it ends or halts, a line per change")
	outputFlag(cmd, &format)
	return cmd
}

// planView is `fleet plan`'s answer.
type planView struct {
	Name    string     `json:"name"`
	Version string     `json:"version,omitempty"`
	Waves   []planWave `json:"waves"`
}

type planWave struct {
	Sites       []planSite `json:"sites"`
	BakeMinutes int        `json:"bakeMinutes"`
}

type planSite struct {
	Cluster string `json:"cluster"`
	Version string `json:"version,omitempty"`
	Status  string `json:"status,omitempty"`
	Note    string `json:"note,omitempty"`
}

// fleetPlanOf is the spec's waves with each site as its ledger shows it now.
func fleetPlanOf(ctx context.Context, c client.Client, spec fleet.Spec, version string) planView {
	p := planView{Name: spec.Name, Version: version}
	for _, w := range fleet.Plan(spec) {
		pw := planWave{BakeMinutes: w.BakeMinutes}
		for _, cl := range w.Sites {
			ps := planSite{Cluster: cl}
			v, err := askWorkflow(ctx, c, api.ClusterID(cl), api.QueryPage, api.PageRequest{})
			var page api.PageResult
			if err == nil {
				err = v.Get(&page)
			}
			switch {
			case err != nil:
				ps.Note = "its ledger did not answer: " + err.Error()
			case version != "" && page.State.UpgradeTarget == "" && page.State.Cluster.RuntimeVersion == version:
				ps.Note = "already at " + version + ": not started"
			case page.State.UpgradeTarget != "":
				ps.Note = "an upgrade to " + page.State.UpgradeTarget + " is in progress there"
			}
			ps.Version, ps.Status = page.State.Cluster.RuntimeVersion, page.State.Cluster.DetailedStatus
			pw.Sites = append(pw.Sites, ps)
		}
		p.Waves = append(p.Waves, pw)
	}
	return p
}

func writeFleetPlan(w io.Writer, format string, p planView) error {
	return output.Write(w, format, p, func() output.Table {
		t := output.Table{Header: []string{"wave", "site", "version", "status", "note"}}
		for i, wave := range p.Waves {
			for _, s := range wave.Sites {
				t.Rows = append(t.Rows, []string{waveName(i, len(p.Waves)), s.Cluster, s.Version, s.Status, s.Note})
			}
			if wave.BakeMinutes > 0 {
				t.Rows = append(t.Rows, []string{"", "(bake " + strconv.Itoa(wave.BakeMinutes) + " min)", "", "", ""})
			}
		}
		return t
	})
}

// waveName is "1/4" (the canary's, when the spec has one, is wave 1).
func waveName(i, n int) string { return fmt.Sprintf("%d/%d", i+1, n) }

// writeFleet shows a fleet's status: a table of its sites with the
// rollout's state, wave, bake and halt as notes.
func writeFleet(w io.Writer, format string, fs api.FleetStatus, now time.Time) error {
	return output.Write(w, format, fs, func() output.Table {
		t := output.Table{Header: []string{"site", "wave", "verdict", "started", "finished", "detail"}}
		ro := fs.Rollout
		if ro == nil {
			t.Notes = append(t.Notes, fmt.Sprintf("fleet %s: %s, %d sites, no rollout yet", fs.Name, fs.State, len(fs.Spec.Clusters)))
			return t
		}
		for _, s := range ro.Sites {
			verdict := s.Verdict
			if s.Acknowledged {
				verdict += " (acknowledged)"
			}
			t.Rows = append(t.Rows, []string{s.Cluster, waveName(s.Wave, len(ro.Waves)), verdict, clock(s.StartedAt), clock(s.FinishedAt), s.Detail})
		}
		t.Notes = append(t.Notes, fmt.Sprintf("fleet %s: %s — rollout of %s, wave %d of %d", fs.Name, fs.State, ro.Request.TargetVersion, min(ro.Wave+1, len(ro.Waves)), len(ro.Waves)))
		if ro.BakeUntil != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("baking until %s (%v from now)", ro.BakeUntil.UTC().Format(time.RFC3339), ro.BakeUntil.Sub(now).Round(time.Second)))
		}
		if h := ro.Halt; h != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("halted by %s (%s): %s — `starter fleet continue --name %s` goes on, `cancel` ends it", h.Site, h.Verdict, h.Reason, fs.Name))
		}
		if len(ro.PausedSites) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("paused by the fleet: %s — `starter fleet continue --name %s` continues them", strings.Join(ro.PausedSites, ", "), fs.Name))
		}
		if fs.NextMove != "" {
			t.Notes = append(t.Notes, fs.NextMove)
		}
		return t
	})
}

func clock(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("01-02 15:04:05")
}

// watchFleet prints the rollout's log as it grows until the rollout ends
// (exit 0 completed, 2 cancelled) or halts (exit 3: it waits for the
// operator), then the status in format; with json or yaml the log goes to
// stderr, so that stdout is the status alone.
func watchFleet(ctx context.Context, cmd *cobra.Command, c client.Client, name, format string) error {
	out, log := cmd.OutOrStdout(), cmd.OutOrStdout()
	if format == "json" || format == "yaml" {
		log = cmd.ErrOrStderr()
	}
	printed := map[fleet.Event]bool{}
	for {
		fs, err := fleetStatus(ctx, c, name)
		if err != nil {
			return err
		}
		if ro := fs.Rollout; ro != nil {
			for _, e := range ro.Events {
				if !printed[e] {
					fmt.Fprintf(log, "%s  %s\n", e.At.UTC().Format("15:04:05"), strings.TrimSpace(e.Site+" "+e.What))
					printed[e] = true
				}
			}
		}
		switch fs.State {
		case fleet.StateIdle:
			return fmt.Errorf("fleet %s has no rollout", name)
		case fleet.StateCompleted:
			return writeFleet(out, format, fs, time.Now())
		case fleet.StateCancelled:
			_ = writeFleet(out, format, fs, time.Now())
			return withCode(exitFailed, fmt.Errorf("the rollout of fleet %s was cancelled", name))
		case fleet.StateHalted:
			_ = writeFleet(out, format, fs, time.Now())
			h := fs.Rollout.Halt
			return withCode(exitPaused, fmt.Errorf("fleet %s halted by %s (%s): %s", name, h.Site, h.Verdict, h.Reason))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}
