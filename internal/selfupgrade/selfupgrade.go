// Package selfupgrade holds the decisions of rackroll upgrading itself with
// Temporal Worker Versioning (docs/self-upgrade.md): which deployment and
// build a worker registers as, whether a long run moves to a new build now,
// and whether a build can read the state a run carried across
// continue-as-new. Pure functions: the worker and the workflows call them.
package selfupgrade

import (
	"fmt"
	"strings"
)

// DefaultDeployment is the Worker Deployment rackroll's workers belong to
// when they are versioned and nothing else names one.
const DefaultDeployment = "rackroll"

// The variables the temporal-worker-controller injects into the pods it
// runs; the worker reads the same ones, so a pod run by hand or by the
// controller is configured alike.
const (
	EnvDeployment = "TEMPORAL_DEPLOYMENT_NAME"
	EnvBuildID    = "TEMPORAL_WORKER_BUILD_ID"
)

// MaxIDLen bounds a deployment name and a build ID: the server's
// worker.buildIdSizeLimit default, below its per-field limit for version
// ids ((limit.maxIDLength − 39) / 2 = 480).
const MaxIDLen = 255

// ValidDeploymentName checks name against the server's rules, so a worker
// refuses it at start instead of failing every poll.
func ValidDeploymentName(name string) error {
	if err := validID("deployment name", "--deployment", name); err != nil {
		return err
	}
	// The server reserves both: "." separated deployment and build in the
	// pre-release version strings, ":" does now.
	if strings.ContainsAny(name, ".:") {
		return fmt.Errorf("deployment name %q: must not contain '.' or ':' (the server uses them to join deployment and build); the controller's \"<namespace>/<name>\" is fine", name)
	}
	return nil
}

// ValidBuildID checks id against the server's rules.
func ValidBuildID(id string) error {
	return validID("build ID", "--build-id", id)
}

func validID(what, flag, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%s is empty: set %s", what, flag)
	case len(s) > MaxIDLen:
		return fmt.Errorf("%s %q is %d bytes: at most %d allowed", what, s, len(s), MaxIDLen)
	case strings.HasPrefix(s, "__"):
		return fmt.Errorf("%s %q: must not start with \"__\" (the server reserves it, as in __unversioned__)", what, s)
	case strings.TrimSpace(s) != s || strings.ContainsAny(s, "\n\t\r"):
		return fmt.Errorf("%s %q: must not have spaces around it or control characters (it is compared byte for byte)", what, s)
	}
	return nil
}

// BuildSource is everything a build ID can come from, most specific first.
type BuildSource struct {
	Flag     string // --build-id
	Env      string // TEMPORAL_WORKER_BUILD_ID (the controller's)
	Release  string // internal/version.Version: "dev" unless set at link time
	Revision string // the VCS revision the binary was built from ("" without VCS information)
	Modified bool   // the work tree had changes when it was built
}

// ResolveBuildID picks the build ID a versioned worker registers with and
// says where it came from (for the worker's start log). The flag and the
// environment are taken as they are; a release is its version; a
// development build is its revision, marked -dirty when the tree had
// changes: two dirty builds of one revision are the same build to the
// server, so deploy only clean ones.
func ResolveBuildID(s BuildSource) (id, from string, err error) {
	switch {
	case s.Flag != "":
		id, from = s.Flag, "--build-id"
	case s.Env != "":
		id, from = s.Env, EnvBuildID
	case s.Release != "" && s.Release != "dev":
		id, from = s.Release, "release"
	case len(s.Revision) >= 12:
		id, from = s.Revision[:12], "vcs revision"
		if s.Modified {
			id += "-dirty"
		}
	default:
		return "", "", fmt.Errorf("no build ID: this is a development build without VCS information; set --build-id or %s", EnvBuildID)
	}
	if err := ValidBuildID(id); err != nil {
		return "", "", fmt.Errorf("%s: %w", from, err)
	}
	return id, from, nil
}
