package main

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/internal/version"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/worker"
)

// versioningFlags are how a worker joins a Worker Deployment
// (docs/self-upgrade.md#the-deployment-and-the-build). Off unless a
// deployment is named: a versioned worker gets no task until its version
// is made current, so turning it on is a rollout step, never a default.
type versioningFlags struct {
	deployment *string
	buildID    *string
}

func versioningFlagsOn(fs *pflag.FlagSet) versioningFlags {
	return versioningFlags{
		deployment: fs.String("deployment", "", "join this Worker Deployment as a version (Worker Versioning; e.g. \""+selfupgrade.DefaultDeployment+"\"); default $"+selfupgrade.EnvDeployment+", none: unversioned (docs/self-upgrade.md)"),
		buildID:    fs.String("build-id", "", "this worker's build in the deployment; default $"+selfupgrade.EnvBuildID+", else the release, else the VCS revision"),
	}
}

// versioned is what the flags and the environment ask for: the deployment
// options of the worker (zero: unversioned) and a line for the start log.
func (f versioningFlags) versioned(getenv func(string) string, siteOf string) (worker.DeploymentOptions, string, error) {
	name := *f.deployment
	if name == "" {
		name = getenv(selfupgrade.EnvDeployment)
	}
	if name == "" {
		if *f.buildID != "" {
			return worker.DeploymentOptions{}, "", fmt.Errorf("--build-id %q without a deployment: set --deployment (or $%s) too, or neither for an unversioned worker", *f.buildID, selfupgrade.EnvDeployment)
		}
		return worker.DeploymentOptions{}, "unversioned", nil
	}
	if siteOf != "" {
		// A site worker runs activities only, on a queue no version owns, so
		// the server gives it the activities of every build's workflows.
		return worker.DeploymentOptions{}, "", fmt.Errorf("--site-of %s with deployment %q: a site worker stays unversioned so that every build can use it; unset --deployment and $%s for it (docs/self-upgrade.md#the-deployment-and-the-build)", siteOf, name, selfupgrade.EnvDeployment)
	}
	if err := selfupgrade.ValidDeploymentName(name); err != nil {
		return worker.DeploymentOptions{}, "", err
	}
	rev, modified := version.VCS()
	id, from, err := selfupgrade.ResolveBuildID(selfupgrade.BuildSource{Flag: *f.buildID, Env: getenv(selfupgrade.EnvBuildID),
		Release: version.Version, Revision: rev, Modified: modified})
	if err != nil {
		return worker.DeploymentOptions{}, "", err
	}
	// Every workflow type names its own behaviour (workflows.Register); no
	// default, so a type added without one fails the worker at start.
	return worker.DeploymentOptions{UseVersioning: true, Version: worker.WorkerDeploymentVersion{DeploymentName: name, BuildID: id}},
		fmt.Sprintf("%s:%s (build ID from %s)", name, id, from), nil
}
