package redfish

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

// Timings are how long the simulated hardware takes. Tests use milliseconds,
// the lab seconds.
type Timings struct {
	PowerTransition time.Duration // one power-on or power-off; a restart takes two
	Boot            time.Duration // firmware + OS boot until the OS runs
	Reimage         time.Duration // installer run, between reimage-start and reimage-done
	// Media replaces a slow profile's Profile.MediaDelay when non-zero
	// (tests use milliseconds); profiles without one stay quick.
	Media    time.Duration
	Firmware time.Duration // one firmware install, Running to its end
	BMCReset time.Duration // a BMC rebooting after its own update answers nothing this long
}

// Config describes one machine and its BMC.
type Config struct {
	BMM, Rack          string
	Username, Password string // resolved by the lab from the inventory's references
	RuntimeVersion     string // OS version installed now
	SerialNumber       string
	BootMAC            string
	Timings            Timings
	Events             events.Sink // may be nil
	OnChange           func(State) // called (not under lock, from any goroutine) after every change of State
	// Fetchable says whether the BMC can fetch an image URL (nil: every
	// one); an image it cannot fetch is accepted and never mounted.
	Fetchable func(image string) bool
	// Redirect is the URL a fetch of image ends at after the image
	// server's redirects (nil: image itself); ShapeRedirect shows it.
	Redirect func(image string) string

	// Profile names the vendor the BMC behaves like (ProfileNames); ""
	// is DefaultProfile, a realistic iDRAC9.
	Profile string
	// SessionTimeout overrides the profile's idle timeout of sessions when
	// non-zero (tests use milliseconds).
	SessionTimeout time.Duration

	// ManagerVirtualMediaOnly hides the System's VirtualMedia collection, as
	// iDRAC firmware before 6.x does, so clients must find the drive under
	// the Manager. Only profiles with media in both places have a Manager
	// collection to fall back on (helpful).
	ManagerVirtualMediaOnly bool

	// AccountLimit is how many accounts the BMC holds, its own included
	// (0: DefaultAccountLimit).
	AccountLimit int

	// Firmware overrides the profile's firmware versions by kind (bios,
	// bmc, nic, storage): the number, shown in the vendor's format.
	Firmware map[string]string

	// Unracked is a server delivered but not racked yet: its machine is
	// off, RuntimeVersion on its disk, until PowerButton (rack.go).
	Unracked bool
}

// State is what the rest of the lab (kubelet simulator, tests) sees of the
// machine.
type State struct {
	Power          string // "On" | "Off"; changes when a power transition completes
	PoweringOff    bool   // a power-off (or a restart's first half) is under way
	PoweringOn     bool   // a power-on (or a restart's second half) is under way
	OSRunning      bool   // powered on and booted into an installed OS
	Booting        bool
	Reimaging      bool
	RuntimeVersion string // last version installed successfully
	ReimageCount   int    // successful reimages (tests check exactly-once)
	ReimageFailed  bool   // last reimage failed: no bootable OS until the next successful one
	// UpdateRequests counts firmware update requests received
	// (SimpleUpdate and pushes, refused or not): tests check exactly-once;
	// BMC.UpdateRequestsByKind counts them per component.
	UpdateRequests int
}

// BMC is one simulated baseboard management controller and the machine it
// manages. It is safe for concurrent use.
type BMC struct {
	cfg   Config
	clk   clock
	prof  Profile
	paths paths

	mu sync.Mutex
	machine
	drives   []media // indexed by Slot.Drive
	install  int     // the drive the running installer reads from
	faults   map[faults.Kind]float64
	tasks    taskList
	sessions sessionStore
	// Accounts (accounts.go): the AccountService's, the BMC's own first.
	accounts   []*account
	accountSeq int
	// accountWrites: POSTs and PATCHes of accounts (AccountWrites).
	accountWrites int
	rng           *rand.Rand
	mediaOp       sync.Mutex // held by a slow media action (media_slow.go)

	// Firmware (firmware.go, firmware_update.go).
	fw             []*fwPart
	fwStaged       []*fwJob // waiting for the next host reset
	fwRunning      *fwJob   // installing: another update is refused as busy
	awayUntil      time.Time
	updateRequests int
	kindRequests   map[string]int
	startUpdates   int // StartUpdate requests (update_shapes.go)

	closed  bool
	done    chan struct{} // closed by Close: aborts hanging requests
	servers []*http.Server
	hanging int // requests held by faults.BMCTimeout

	// Notices wait here until delivered, in order, outside the lock.
	queue    []notice
	draining bool
	last     State
}

// New returns a BMC whose machine is powered on and running
// cfg.RuntimeVersion, as in a site in steady state.
func New(cfg Config) *BMC {
	return newWithClock(cfg, realClock{})
}

func newWithClock(cfg Config, clk clock) *BMC {
	prof := profileOf(cfg.Profile)
	if cfg.ManagerVirtualMediaOnly && len(prof.ManagerMedia) > 0 {
		prof.SystemMedia, prof.SystemMediaLink = nil, ""
	}
	if cfg.SessionTimeout > 0 {
		prof.SessionTimeout = cfg.SessionTimeout
	}
	if cfg.Timings.Media > 0 && prof.MediaDelay > 0 {
		prof.MediaDelay = cfg.Timings.Media
	}
	ps := pathsFor(prof)
	b := &BMC{
		cfg:    cfg,
		clk:    clk,
		prof:   prof,
		paths:  ps,
		fw:     firmwareFor(prof, ps, cfg.Firmware),
		drives: make([]media, prof.drives()),
		tasks:  taskList{prefix: prof.TaskPrefix},
		faults: map[faults.Kind]float64{},
		rng:    rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		done:   make(chan struct{}),
	}
	b.machine = machine{
		phase:    phaseRunning,
		power:    "On",
		version:  cfg.RuntimeVersion,
		override: bootOverride{enabled: "Disabled", target: "None", mode: prof.bootModeDefault()},
	}
	if cfg.Unracked {
		b.phase, b.power = phaseOff, "Off"
	}
	b.last = b.snapshotLocked()
	return b
}

// Profile returns the vendor profile the BMC plays.
func (b *BMC) Profile() Profile { return b.prof }

// SystemPath is the System's URI on this BMC (it differs by profile:
// /redfish/v1/Systems/System.Embedded.1 on iDRAC, /redfish/v1/Systems/1 on
// iLO, Supermicro and XCC).
func (b *BMC) SystemPath() string { return b.paths.system }

// State returns a snapshot of the machine.
func (b *BMC) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.snapshotLocked()
}

// Close stops timers, aborts hanging requests and shuts down servers started
// by Serve. The machine freezes in its current state.
func (b *BMC) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.stopTimerLocked()
	close(b.done)
	servers := b.servers
	b.servers = nil
	b.mu.Unlock()
	for _, s := range servers {
		s.Close()
	}
}

func (b *BMC) snapshotLocked() State {
	return State{
		Power:          b.power,
		PoweringOff:    b.phase == phasePoweringOff,
		PoweringOn:     b.phase == phasePoweringOn,
		OSRunning:      b.phase == phaseRunning,
		Booting:        b.phase == phaseBooting,
		Reimaging:      b.phase == phaseReimaging,
		RuntimeVersion: b.version,
		ReimageCount:   b.reimages,
		ReimageFailed:  b.reimageFailed,
		UpdateRequests: b.updateRequests,
	}
}
