package remediation

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
)

// The generator of TestPropertyRandomRemediations: what falls sick, when,
// how far up its ladder it must go to recover, and the settings.

// Fault kinds the scenarios inject.
const (
	faultUnknown      = "node-unknown"
	faultROFS         = "readonly-rootfs"
	faultProvisioning = "provisioning-stuck" // ledger Provisioning, no node
)

// remFate is how far up its ladder a sick BMM must go to recover.
type remFate int

const (
	fateReboot      remFate = iota // a reboot brings it back (so does a reprovision)
	fateReprovision                // the reboot fails (power does not come back); a reprovision brings it back
	fateNever                      // nothing does
)

func (f remFate) String() string { return [...]string{"reboot", "reprovision", "never"}[f] }

// remFault is one BMM falling sick.
type remFault struct {
	BMM  string
	At   time.Duration // after the monitor starts
	Kind string
	Fate remFate
	// Sticky (with fateNever): restart and reimage succeed but the
	// condition survives them; otherwise power does not come back and the
	// installer fails.
	Sticky bool
}

func (f remFault) String() string {
	s := fmt.Sprintf("%s@%v:%s/%s", f.BMM, f.At, f.Kind, f.Fate)
	if f.Sticky {
		s += "(sticky)"
	}
	return s
}

// remScenario is one drawn run.
type remScenario struct {
	inventory                  string
	cfg                        model.RemediationSpec
	restart, reimage, powerOff time.Duration
	storm, flood               bool // drew several sick control-plane nodes, more compute than the cap
	faults                     []remFault
}

func (sc *remScenario) String() string {
	fs := make([]string, len(sc.faults))
	for i, f := range sc.faults {
		fs[i] = f.String()
	}
	c := sc.cfg
	return fmt.Sprintf("%s interval=%v rofs=%v unknown=%v provisioning=%v cap=%d restart=%v reimage=%v powerOff=%v storm=%v flood=%v faults=[%s]",
		sc.inventory, c.Interval, c.ReadOnlyRootFilesystemFor, c.NodeUnknownFor, c.ProvisioningTimeout, c.MaxConcurrentCompute,
		sc.restart, sc.reimage, sc.powerOff, sc.storm, sc.flood, strings.Join(fs, " "))
}

// drawRemScenario draws a scenario on r's site (placed already).
func drawRemScenario(rnd *rand.Rand, inventory string, r *wftest.FakeSite) *remScenario {
	sc := &remScenario{inventory: inventory}
	mins := func(ms ...int) time.Duration { return time.Duration(ms[rnd.IntN(len(ms))]) * time.Minute }
	sc.cfg = model.RemediationSpec{Interval: model.Duration(mins(1, 2, 5)), ReadOnlyRootFilesystemFor: model.Duration(mins(5, 10)),
		NodeUnknownFor: model.Duration(mins(10, 30)), ProvisioningTimeout: model.Duration(mins(20, 60)),
		MaxConcurrentCompute: []int{1, 2, 3, 5}[rnd.IntN(4)]}
	// Odd seconds keep effects off the rounds' instants (whole minutes).
	sc.restart = mins(0, 2, 5) + 7310*time.Millisecond
	sc.reimage = mins(0, 10, 25) + 11730*time.Millisecond
	sc.powerOff = mins(0, 1) + 3170*time.Millisecond

	var cp, compute, all []string
	for _, b := range r.St.Cluster.BMMs {
		all = append(all, b.Name)
		switch role := remediate.RoleOf(b); {
		case role.IsControlPlane():
			cp = append(cp, b.Name)
		case role == model.RoleCompute:
			compute = append(compute, b.Name)
		}
	}
	sick := map[string]bool{}
	add := func(bmm string, at time.Duration) {
		if sick[bmm] {
			return
		}
		sick[bmm] = true
		b := r.Bmm(bmm)
		f := remFault{BMM: bmm, At: at + time.Duration(1+rnd.IntN(58))*time.Second + 500*time.Millisecond}
		// 45, 35 and 20 in 100. Ready=Unknown is no trigger for compute:
		// such a server must be left alone.
		kinds := []string{faultUnknown, faultROFS, faultProvisioning}
		if b.HasRole(model.RoleCompute) {
			kinds = []string{faultROFS, faultProvisioning, faultUnknown}
		}
		switch k := rnd.IntN(100); {
		case k < 45:
			f.Kind = kinds[0]
		case k < 80:
			f.Kind = kinds[1]
		default:
			f.Kind = kinds[2]
		}
		switch k := rnd.IntN(10); {
		case k < 4:
			f.Fate = fateReboot
		case k < 7:
			f.Fate = fateReprovision
		default:
			f.Fate = fateNever
			f.Sticky = f.Kind != faultProvisioning && rnd.IntN(2) == 0
		}
		sc.faults = append(sc.faults, f)
	}
	if len(cp) >= 2 && rnd.IntN(10) < 3 {
		// Control-plane nodes falling sick together (a storm), or one
		// After another, some while another is being remediated.
		sc.storm = true
		at, spread := mins(0, 10, 30, 60), []int{8, 8, 45}[rnd.IntN(3)]
		for _, i := range rnd.Perm(len(cp))[:2+rnd.IntN(min(2, len(cp)-1))] {
			add(cp[i], at+time.Duration(rnd.IntN(spread))*time.Minute)
		}
	}
	if len(compute) > sc.cfg.MaxConcurrentCompute && rnd.IntN(10) < 3 {
		sc.flood = true
		at := mins(0, 10, 30, 60)
		for _, i := range rnd.Perm(len(compute))[:min(len(compute), sc.cfg.MaxConcurrentCompute+1+rnd.IntN(5))] {
			add(compute[i], at+time.Duration(rnd.IntN(5))*time.Minute)
		}
	}
	for range 1 + rnd.IntN(5) {
		add(all[rnd.IntN(len(all))], time.Duration(rnd.IntN(120))*time.Minute)
	}
	sort.SliceStable(sc.faults, func(i, j int) bool { return sc.faults[i].At < sc.faults[j].At })
	return sc
}
