// Package lab is the simulated site rackroll is developed and tested
// against: a real etcd + kube-apiserver with a kubelet simulator, and one
// Redfish BMC per bare-metal machine, with fault injection and an event log.
// `starter lab up` runs it; tests start it in-process.
package lab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/kubeapi"
	"github.com/rackroll/rackroll/internal/lab/kubesim"
	"github.com/rackroll/rackroll/internal/lab/pki"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// Default timings when the inventory's lab section gives none. Short, so a
// four-rack upgrade runs in minutes.
const (
	DefaultBoot            = 2 * time.Second
	DefaultReimage         = 3 * time.Second
	DefaultPowerTransition = 500 * time.Millisecond
	DefaultDrain           = time.Second
	DefaultFirmware        = 2 * time.Second
	DefaultBMCReset        = 3 * time.Second
)

// FastTimings is hardware that answers in fractions of a second, for the
// end-to-end tests and tools that need a finished history, not realistic
// minutes.
func FastTimings() Timings {
	return Timings{Boot: model.Duration(300 * time.Millisecond), Reimage: model.Duration(500 * time.Millisecond),
		PowerTransition: model.Duration(100 * time.Millisecond), Drain: model.Duration(200 * time.Millisecond),
		Media:    model.Duration(300 * time.Millisecond),
		Firmware: model.Duration(300 * time.Millisecond), BMCReset: model.Duration(500 * time.Millisecond)}
}

// Options configure Start.
type Options struct {
	Inventory *model.Inventory
	// Dir holds the lab's files (kubeconfig, credentials, logs). Empty: a
	// temp dir removed on Stop.
	Dir string
	// EventsPath, when set, also writes the event log there as JSON Lines.
	EventsPath string
	// AdminAddr is the admin endpoint's listen address (default 127.0.0.1:0).
	AdminAddr string
	// Timings override the inventory's lab timings when non-zero.
	Timings Timings
	// Workloads places tenant pods, PDBs and VMs (default true via Start).
	NoWorkloads bool
}

// Machine is one simulated BMM.
type Machine struct {
	Name, Rack, NodeName string
	Role                 model.Role
	ManagementGroup      string
	BMC                  *redfish.BMC
	URL                  string // https://127.0.0.1:<port>, verified against Lab.BMCCAFile
	Profile              string // the vendor its BMC behaves like
}

// Lab is a running simulated site.
type Lab struct {
	Inventory *model.Inventory // the input
	Events    *events.Log
	Kube      *kubeapi.Server
	Sim       *kubesim.Sim
	Dir       string
	AdminURL  string
	BMCCAFile string // PEM of the CA that signed every BMC's certificate

	machines map[string]*Machine
	order    []string
	mu       sync.Mutex      // guards unracked and the URLs Rack sets
	unracked map[string]bool // servers not racked yet (rack.go)
	bmcCA    *pki.CA         // signs the certificate of a BMC racked later
	roles    *roleTap
	detached bool // lab.etcdDetached: members do not follow their machines
	creds    credentials
	admin    *http.Server
	images   *imageServer
	cancel   context.CancelFunc
	tempDir  bool
	stopOnce sync.Once
}

// Start brings the lab up: apiserver, nodes and workloads, BMCs, the
// kubelet simulator and the admin endpoint. On error nothing is left running.
func Start(ctx context.Context, opts Options) (l *Lab, err error) {
	inv := opts.Inventory
	if inv == nil {
		return nil, errors.New("lab: no inventory")
	}
	section, err := check(inv)
	if err != nil {
		return nil, fmt.Errorf("inventory is not valid:\n%w", err)
	}
	// The site starts as racked; the servers racked later are placed as
	// they join a running site (unracked.go).
	later := section.Lab.unrackedNames(inv)
	placed, err := placement.Place(rackedInventory(inv, later))
	if err != nil {
		return nil, err
	}
	placed = append(placed, joinRoles(inv, placed, later)...)
	l = &Lab{Inventory: inv, machines: map[string]*Machine{}, Dir: opts.Dir, unracked: later}
	started := l // the named result is nil by the time a failing return's defer runs
	if l.Dir == "" {
		if l.Dir, err = os.MkdirTemp("", "rackroll-lab-"); err != nil {
			return nil, err
		}
		l.tempDir = true
	} else if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			started.Stop()
			l = nil
		}
	}()
	if opts.EventsPath != "" {
		if l.Events, err = events.Open(opts.EventsPath); err != nil {
			return nil, err
		}
	} else {
		l.Events = events.New(nil)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel

	if l.creds, err = makeCredentials(inv, l.Dir); err != nil {
		return nil, err
	}
	t := timings(section.Lab, opts.Timings)
	l.detached = section.Lab != nil && section.Lab.EtcdDetached

	l.roles = newRoleTap(l.Events, placed)
	if l.Kube, err = kubeapi.Start(runCtx, kubeapi.Options{DataDir: filepath.Join(l.Dir, "kube"),
		EtcdMembers: etcdMembers(inv, placed), Events: l.Events}); err != nil {
		return nil, err
	}
	l.roles.follow(l.Kube.Etcd())

	roles := map[string]placement.Assignment{}
	for _, a := range placed {
		roles[a.Name] = a
	}
	var sims []kubesim.Machine
	for _, ref := range inv.Servers() {
		s := ref.Server
		a := roles[s.Name]
		m := &Machine{Name: s.Name, Rack: ref.Rack, NodeName: model.NodeNameOf(s), Role: a.Role, ManagementGroup: a.ManagementGroup}
		l.machines[s.Name] = m
		l.order = append(l.order, s.Name)
		sims = append(sims, kubesim.Machine{Name: s.Name, Rack: ref.Rack, NodeName: m.NodeName,
			Role: string(a.Role), ManagementGroup: a.ManagementGroup, RuntimeVersion: inv.RuntimeVersion,
			TenantLoad: section.Lab.LoadOf(ref.Rack, s.Name), Unracked: later[s.Name]})
	}
	l.Sim = kubesim.New(l.Kube.Client(), sims, kubesim.Options{Events: l.roles, Drain: t.Drain.Std(), Workloads: !opts.NoWorkloads,
		RelabelAgent: section.Lab.Relabels()})
	if err := l.Sim.Setup(ctx); err != nil {
		return nil, fmt.Errorf("lab: create nodes and workloads: %w", err)
	}

	var missing []string
	redirect := false
	if section.Lab != nil {
		missing, redirect = section.Lab.MissingImages, section.Lab.RedirectImages
	}
	if l.images, err = startImageServer(l.Events, missing, redirect); err != nil {
		return nil, fmt.Errorf("lab: image server: %w", err)
	}
	if err := l.startBMCs(inv, section.Lab, t); err != nil {
		return nil, err
	}
	go l.Sim.Run(runCtx)

	if section.Lab != nil {
		for _, f := range section.Lab.Faults {
			if err := l.SetFault(f.BMM, f.Kind, f.Rate, false); err != nil {
				return nil, err
			}
		}
	}
	if err := l.serveAdmin(opts.AdminAddr); err != nil {
		return nil, err
	}
	return l, nil
}

// Machine returns the named BMM, or nil.
func (l *Lab) Machine(name string) *Machine { return l.machines[name] }

// Machines lists every BMM in inventory order.
func (l *Lab) Machines() []*Machine {
	out := make([]*Machine, 0, len(l.order))
	for _, n := range l.order {
		out = append(out, l.machines[n])
	}
	return out
}

// ReimageCounts maps each BMM to its successful reimages so far.
func (l *Lab) ReimageCounts() map[string]int {
	out := map[string]int{}
	for n, m := range l.machines {
		out[n] = m.BMC.State().ReimageCount
	}
	return out
}

// Stop shuts everything down and removes a temp dir. Safe to call twice.
func (l *Lab) Stop() {
	l.stopOnce.Do(func() {
		if l.admin != nil {
			l.admin.Close()
		}
		if l.images != nil {
			l.images.close()
		}
		for _, m := range l.machines {
			if m.BMC != nil {
				m.BMC.Close()
			}
		}
		if l.cancel != nil {
			l.cancel()
		}
		if l.Kube != nil {
			l.Kube.Stop()
		}
		if l.Events != nil {
			l.Events.Close()
		}
		if l.tempDir {
			os.RemoveAll(l.Dir)
		}
	})
}

// Names lists BMM names sorted, for error messages.
func (l *Lab) names() []string {
	out := append([]string(nil), l.order...)
	sort.Strings(out)
	return out
}

func timings(spec *Spec, over Timings) Timings {
	t := Timings{
		Boot: model.Duration(DefaultBoot), Reimage: model.Duration(DefaultReimage),
		PowerTransition: model.Duration(DefaultPowerTransition), Drain: model.Duration(DefaultDrain),
		Firmware: model.Duration(DefaultFirmware), BMCReset: model.Duration(DefaultBMCReset),
	}
	pick := func(dst *model.Duration, vals ...model.Duration) {
		for _, v := range vals {
			if v > 0 {
				*dst = v
			}
		}
	}
	var in Timings
	if spec != nil {
		in = spec.Timings
	}
	pick(&t.Boot, in.Boot, over.Boot)
	pick(&t.Reimage, in.Reimage, over.Reimage)
	pick(&t.PowerTransition, in.PowerTransition, over.PowerTransition)
	pick(&t.Drain, in.Drain, over.Drain)
	pick(&t.Media, in.Media, over.Media) // zero: each slow profile's own
	pick(&t.Firmware, in.Firmware, over.Firmware)
	pick(&t.BMCReset, in.BMCReset, over.BMCReset)
	return t
}
