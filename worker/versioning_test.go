package main

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/worker"
)

// The worker joins a Worker Deployment only when one is named, by flag or
// by the variables the worker controller injects, and refuses what the
// server would, before it connects.
func TestVersioningFlags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		env    map[string]string
		siteOf string
		want   worker.DeploymentOptions
		line   string
		err    string
	}{
		{name: "unversioned by default", line: "unversioned"},
		{name: "by flag", args: []string{"--deployment", "rackroll", "--build-id", "b-2"},
			want: versioned("rackroll", "b-2"), line: "rackroll:b-2 (build ID from --build-id)"},
		{name: "as the controller injects it", env: map[string]string{selfupgrade.EnvDeployment: "rackroll/rackroll", selfupgrade.EnvBuildID: "v1.4.0-9f3c"},
			want: versioned("rackroll/rackroll", "v1.4.0-9f3c"), line: "rackroll/rackroll:v1.4.0-9f3c (build ID from TEMPORAL_WORKER_BUILD_ID)"},
		{name: "the flag wins", args: []string{"--deployment", "rackroll", "--build-id", "mine"}, env: map[string]string{selfupgrade.EnvDeployment: "other", selfupgrade.EnvBuildID: "theirs"},
			want: versioned("rackroll", "mine"), line: "rackroll:mine"},
		{name: "a build without a deployment", args: []string{"--build-id", "b-2"},
			err: `--build-id "b-2" without a deployment: set --deployment (or $TEMPORAL_DEPLOYMENT_NAME) too`},
		{name: "a site worker stays unversioned", env: map[string]string{selfupgrade.EnvDeployment: "rackroll", selfupgrade.EnvBuildID: "b"}, siteOf: "site-a",
			err: `--site-of site-a with deployment "rackroll": a site worker stays unversioned`},
		{name: "the site worker of an unversioned install", siteOf: "site-a", line: "unversioned"},
		{name: "a reserved name", args: []string{"--deployment", "__x", "--build-id", "b"}, err: `deployment name "__x": must not start with "__"`},
		{name: "a dotted name", args: []string{"--deployment", "rack.roll", "--build-id", "b"}, err: "must not contain '.' or ':'"},
		{name: "a reserved build", args: []string{"--deployment", "rackroll", "--build-id", "__unversioned__"}, err: `--build-id: build ID "__unversioned__"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
			vf := versioningFlagsOn(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got, line, err := vf.versioned(func(k string) string { return tc.env[k] }, tc.siteOf)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || !strings.HasPrefix(line, tc.line) {
				t.Fatalf("got %+v %q, want %+v %q", got, line, tc.want, tc.line)
			}
		})
	}
}

func versioned(name, build string) worker.DeploymentOptions {
	return worker.DeploymentOptions{UseVersioning: true, Version: worker.WorkerDeploymentVersion{DeploymentName: name, BuildID: build}}
}
