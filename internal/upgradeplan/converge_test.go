package upgradeplan

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

// at sets the named BMMs to version.
func at(c model.Cluster, version string, names ...string) model.Cluster {
	for _, n := range names {
		b, _ := c.BMM(n)
		b.RuntimeVersion = version
	}
	return c
}

func TestInstallVersion(t *testing.T) {
	const old, target = modeltest.Version, "4.2.0"
	base := func() model.Cluster {
		return modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare~", "rack1-m2:management/a", "rack2-m2:management/b",
			"rack1-c1:compute", "rack2-c1:compute", "rack2-c2:compute!")
	}
	for _, tc := range []struct {
		name   string
		c      model.Cluster
		target string // the ledger's UpgradeTarget
		bmm    string
		want   string
	}{
		{"no upgrade: the server's own version", at(base(), target, "rack1-c1"), "", "rack1-c1", target},
		{"no upgrade: a server with none gets the cluster's", at(base(), "", "rack1-c1"), "", "rack1-c1", old},
		{"no upgrade: the spare joins on the cluster's", at(base(), "4.0.0", "rack2-m1"), "", "rack2-m1", old},
		{"upgrade before the control plane started", base(), target, "rack1-m1", old},
		{"control plane started: a KCP gets the target", at(base(), target, "rack2-m1"), target, "rack1-m1", target},
		{"control plane done: the retired spare joins on the target", at(base(), target, "rack1-m1"), target, "rack2-m1", target},
		{"management not started while the control plane is done", at(base(), target, "rack1-m1"), target, "rack1-m2", old},
		{"management started: the other group gets the target", at(base(), target, "rack1-m1", "rack1-m2"), target, "rack2-m2", target},
		{"compute left behind by a failed reimage", at(base(), target, "rack1-m1", "rack1-m2", "rack2-m2", "rack2-c1"), target, "rack1-c1", target},
		{"an out-of-service server does not start its phase", at(base(), target, "rack2-c2"), target, "rack1-c1", old},
		{"target equal to the cluster's version: no upgrade", at(base(), "4.0.0", "rack1-c1"), old, "rack1-c1", "4.0.0"},
	} {
		b, ok := tc.c.BMM(tc.bmm)
		if !ok {
			t.Fatalf("%s: no %s", tc.name, tc.bmm)
		}
		if got := InstallVersion(tc.c, tc.target, *b); got != tc.want {
			t.Errorf("%s: InstallVersion(%s) = %s, want %s", tc.name, tc.bmm, got, tc.want)
		}
	}
}

// A failed KCP reprovisioned as management installs what management
// converges to, not what the control plane does.
func TestInstallVersionUsesTheRoleTheServerWillHave(t *testing.T) {
	c := at(modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp", "rack1-m2:management/a"), "4.2.0", "rack2-m1")
	b, _ := c.BMM("rack1-m1")
	asKCP := InstallVersion(c, "4.2.0", *b)
	relabelled := *b
	relabelled.Roles = []model.Role{model.RoleManagement}
	if asMgmt := InstallVersion(c, "4.2.0", relabelled); asKCP != "4.2.0" || asMgmt != modeltest.Version {
		t.Fatalf("as KCP %s (want 4.2.0), as management %s (want %s)", asKCP, asMgmt, modeltest.Version)
	}
}

func TestVersionsAndRuntimeLabel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     model.Cluster
		label string
	}{
		{"one version", modeltest.Cluster("rack1-m1:kcp", "rack1-c1:compute"), modeltest.Version},
		{"mixed, in version order", at(modeltest.Cluster("rack1-m1:kcp", "rack1-c1:compute", "rack1-c2:compute"), "4.10.0", "rack1-m1"),
			"mixed (4.1.2, 4.10.0)"},
		{"the idle spare on the old version is not mixed", at(modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare~"), "4.2.0", "rack1-m1"),
			"4.2.0"},
		{"an out-of-service server on the old version is not mixed", at(modeltest.Cluster("rack1-m1:kcp", "rack1-c1:compute!"), "4.2.0", "rack1-m1"),
			"4.2.0"},
	} {
		c := tc.c
		if vs := Versions(c); len(vs) == 1 {
			c.RuntimeVersion = vs[0]
		}
		if got := RuntimeLabel(c); got != tc.label {
			t.Errorf("%s: RuntimeLabel = %q, want %q (versions %s)", tc.name, got, tc.label, strings.Join(Versions(c), ","))
		}
	}
}
