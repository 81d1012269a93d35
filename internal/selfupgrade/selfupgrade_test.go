package selfupgrade

import (
	"strings"
	"testing"
)

func TestValidDeploymentName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // "" = valid, else a piece of the error
	}{
		{"rackroll", ""},
		{"rackroll/rackroll", ""}, // the controller's <namespace>/<name>
		{"", "deployment name is empty: set --deployment"},
		{"rackroll.v2", "must not contain '.' or ':'"},
		{"rackroll:b", "must not contain '.' or ':'"},
		{"__unversioned__", `must not start with "__"`},
		{" rackroll", "spaces around it"},
		{strings.Repeat("r", MaxIDLen), ""},
		{strings.Repeat("r", MaxIDLen+1), "256 bytes: at most 255 allowed"},
	} {
		err := ValidDeploymentName(tc.name)
		if tc.want == "" && err != nil {
			t.Errorf("%q: %v, want valid", tc.name, err)
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

func TestResolveBuildID(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name     string
		src      BuildSource
		id, from string
		err      string
	}{
		{"flag first", BuildSource{Flag: "b-7", Env: "ctl-hash", Release: "v1.2.3", Revision: rev}, "b-7", "--build-id", ""},
		{"the controller's", BuildSource{Env: "rackroll-v1.2.3-5d8f", Release: "v1.2.3", Revision: rev}, "rackroll-v1.2.3-5d8f", EnvBuildID, ""},
		{"a release", BuildSource{Release: "v1.2.3", Revision: rev}, "v1.2.3", "release", ""},
		{"a development build", BuildSource{Release: "dev", Revision: rev}, "0123456789ab", "vcs revision", ""},
		{"a dirty one", BuildSource{Release: "dev", Revision: rev, Modified: true}, "0123456789ab-dirty", "vcs revision", ""},
		{"nothing to go by", BuildSource{Release: "dev"}, "", "", "no build ID: this is a development build without VCS information; set --build-id or TEMPORAL_WORKER_BUILD_ID"},
		{"a short revision is no revision", BuildSource{Release: "dev", Revision: "0123"}, "", "", "no build ID"},
		{"a reserved flag", BuildSource{Flag: "__x"}, "", "", `--build-id: build ID "__x": must not start with "__"`},
		{"a bad environment", BuildSource{Env: "a b\n"}, "", "", "TEMPORAL_WORKER_BUILD_ID: build ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, from, err := ResolveBuildID(tc.src)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || id != tc.id || from != tc.from {
				t.Fatalf("got %q from %q (%v), want %q from %q", id, from, err, tc.id, tc.from)
			}
		})
	}
}

func TestMoveNow(t *testing.T) {
	for _, tc := range []struct {
		name         string
		p            Point
		changed, now bool
		why          string
	}{
		{"no new build: stay, say nothing", Point{Name: "pause"}, false, false, ""},
		{"no new build, busy: still nothing", Point{Name: "pause", Children: 2}, false, false, ""},
		{"a new build at a pause", Point{Name: "pause"}, true, true, "moving to it by continue-as-new (pause)"},
		{"a rack still running", Point{Name: "between racks", Children: 1}, true, false, "at the next safe point (between racks: child workflows still running: 1)"},
		{"an activity in flight", Point{Name: "history trim", Activities: 3}, true, false, "activities in flight: 3"},
		{"an update being handled", Point{Name: "history trim", HandlersRunning: true}, true, false, "an update or signal handler still running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := MoveNow(tc.p, tc.changed)
			if m.Now != tc.now || (tc.why == "" && m.Why != "") || !strings.Contains(m.Why, tc.why) {
				t.Fatalf("got %+v, want now=%v why containing %q", m, tc.now, tc.why)
			}
		})
	}
}

func TestCheckCarry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     CarryHeader
		reads int
		err   string
	}{
		{"a carry from before the header", CarryHeader{}, 1, ""},
		{"the same format", CarryHeader{Schema: 2, MinReader: 1}, 2, ""},
		// Rollback: B wrote schema 2 with additive fields; A reads 1 and
		// ignores them.
		{"an older build, additive change", CarryHeader{Schema: 2, MinReader: 1}, 1, ""},
		{"an older build, breaking change", CarryHeader{Schema: 3, MinReader: 3, Writer: "B"}, 2,
			"ClusterWorkflow: the carried state was written by build B (schema 3) and needs a build that reads carry format 3 or later; this build A reads up to 2: make build B (or a later one) current again"},
		{"malformed", CarryHeader{Schema: 1, MinReader: 2}, 5, "minReader 2 is above its schema 1"},
		{"a build that reads nothing", CarryHeader{}, 0, "must be at least 1"},
		{"this build's own", Written("B"), CarryFormat, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCarry("ClusterWorkflow", tc.c, tc.reads, "A")
			if tc.err == "" && err != nil {
				t.Fatalf("err %v, want none", err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err %v, want one with %q", err, tc.err)
			}
		})
	}
}
