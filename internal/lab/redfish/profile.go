package redfish

import (
	"sort"
	"strings"
	"time"
)

// Profile is what one vendor's BMC shows over Redfish. The machine behind
// it is the same for every profile (it knows what is installed); only the
// resources, ids, order, allowable values and answers differ.
type Profile struct {
	Name         string
	Vendor       string // ServiceRoot.Vendor
	Product      string
	Manufacturer string // System.Manufacturer
	Model        string
	SystemID     string // Systems/<SystemID>
	ManagerID    string // Managers/<ManagerID>
	ManagerModel string
	Firmware     string // Manager.FirmwareVersion
	BiosVersion  string

	// Virtual media: slots in collection order under the System and under
	// the Manager (nil: no collection there). SystemMediaLink says where
	// the System's VirtualMedia property points ("" none, "system",
	// "manager": Supermicro links the Manager's collection from the System).
	SystemMedia, ManagerMedia []Slot
	SystemMediaLink           string
	// StaleEject: the first read of a slot after an eject still shows the
	// ejected image as Inserted (iDRAC), later reads are current.
	StaleEject bool
	// ImageShape: how Image and ImageName show the image held (Shape*);
	// ImageDelay: how long ShapeLate shows none after the insert.
	ImageShape string
	ImageDelay time.Duration
	// MediaDelay: a media action (InsertMedia, EjectMedia, or the PATCH
	// that stands for them) answers only after MediaDelay to twice that,
	// one action at a time per BMC (media_slow.go); 0: at once.
	MediaDelay time.Duration

	BootTargets []string // BootSourceOverrideTarget@Redfish.AllowableValues
	// Boot mode (profiles_bootmode.go): BootModes is
	// BootSourceOverrideMode@Redfish.AllowableValues (nil: not listed);
	// BootModeDefault the mode the override shows until set, and returns
	// to when a boot consumes it or a PATCH sets the target without a mode
	// ("": UEFI); NoBootMode: the System has no BootSourceOverrideMode (a
	// PATCH of it is refused) and boots in UEFI. The lab's installers are
	// UEFI-only: a virtual-CD boot in Legacy mode falls through to the disk.
	BootModes       []string
	BootModeDefault string
	NoBootMode      bool
	VirtualCDBoot   string   // the target that boots the virtual CD: Cd, or UsbCd (Supermicro)
	ResetTypes      []string // ResetType@Redfish.AllowableValues, as advertised (may be malformed)

	// KeepsContinuous: a one-time boot override is accepted and kept as
	// Continuous (sushy-tools over libvirt): every boot takes it.
	KeepsContinuous bool
	WeakETag        bool   // ETags as W/"…"
	BootProgress    string // "" absent; "full": DMTF states; "post": POST-time values only
	// Helpful: OperatingSystem → SoftwareImage with the installed version,
	// Status.State Starting/Updating and Health Critical after a failed
	// install, reset tasks that complete when the OS runs. No vendor does.
	Helpful bool

	// Answers: 204, 200 (with a message) or 202 (with a task monitor).
	ResetReply, InsertReply, EjectReply int
	// ResetDelay: an accepted reset shows (PowerState leaves On) only this
	// long after the answer.
	ResetDelay time.Duration
	TaskPrefix string // task ids: JID_ on Dell

	SessionLimit   int           // concurrent sessions; 0: unlimited
	SessionTimeout time.Duration // idle timeout; 0: never
	BasicAuth      bool          // basic auth accepted (iDRAC10 ships with it off)
	// NoAuth: a request without credentials is served (authentication
	// turned off); sessions and basic auth still work and are checked.
	NoAuth bool
	// SessionLimitError is the MessageId (full, with registry) and text of
	// the refusal when the limit is reached.
	SessionLimitID, SessionLimitMessage string
	SessionLimitStatus                  int // HTTP status of that refusal (0: 503)

	// Firmware (firmware.go, firmware_update.go). FirmwareIDs shapes the
	// FirmwareInventory member ids: "dell" (Installed-/Previous-), "hpe"
	// (integers), "" the component's name. NICFirmware and
	// StorageFirmware are those components' versions ("" none listed).
	FirmwareIDs                  string
	NICFirmware, StorageFirmware string
	// NoFirmwareInventory: the UpdateService links a FirmwareInventory it
	// answers 404 for (sushy-tools): versions show only in the System and
	// the Manager (profiles_noinventory.go).
	NoFirmwareInventory bool
	// StagesHostUpdates: a host firmware update is a job staged until the
	// next host reset, whatever apply time was asked (iDRAC's job queue).
	StagesHostUpdates bool
	// HostOffFor: kinds whose update is refused unless the host is off.
	HostOffFor []string
	// NoSimpleUpdate: no SimpleUpdate action; MultipartPush: a
	// MultipartHttpPushUri.
	NoSimpleUpdate, MultipartPush bool
	// BusyStatus and BusyID answer an update while another installs (0:
	// 503 ServiceTemporarilyUnavailable with Retry-After).
	BusyStatus int
	BusyID     string

	// AccountSlots: the AccountService is a fixed table of this many
	// account slots (accounts_slots.go): an account is made by a PATCH of
	// an empty slot, POST and DELETE answer 405. 0: a collection that
	// grows by POST, up to Config.AccountLimit.
	AccountSlots int
	// Accounts: how the AccountService's accounts look beyond their
	// shape (accounts_vendor.go): properties a vendor lacks, its password
	// rules.
	Accounts AccountRules

	// Updates: how the BMC wants updates asked for and announces their
	// tasks, beyond DMTF's defaults (update_shapes.go).
	Updates UpdateShape
}

// Slot is one virtual media device.
type Slot struct {
	ID, Name   string
	MediaTypes []string
	// Upload: an RDOC-style slot that takes uploaded images only; it
	// refuses a URL.
	Upload bool
	// NoInsertAction: the slot has no InsertMedia/EjectMedia actions; the
	// vendor wants a PATCH of Image and Inserted (Lenovo XCC).
	NoInsertAction bool
	// Boots: booting the virtual-CD target boots from this slot when it
	// holds an image (iDRAC10 boots only slot 1).
	Boots bool
	// Drive: the media state behind the slot; two slots with the same Drive
	// are one device seen in two places (the helpful profile's System and
	// Manager views).
	Drive int
}

func (s Slot) cdCapable() bool {
	for _, t := range s.MediaTypes {
		if t == "CD" || t == "DVD" {
			return true
		}
	}
	return false
}

// DefaultProfile is the profile of a BMC whose Config names none: a
// realistic iDRAC9.
const DefaultProfile = "idrac9"

var profiles = map[string]func() Profile{}

func register(name string, f func() Profile) { profiles[name] = f }

// ProfileNames lists the known profiles, sorted.
func ProfileNames() []string {
	out := make([]string, 0, len(profiles))
	for n := range profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// KnownProfile reports whether name is a profile ("" is the default).
func KnownProfile(name string) bool {
	_, ok := profiles[name]
	return ok || name == ""
}

// LookupProfile returns the named profile ("" is DefaultProfile) and
// whether it exists.
func LookupProfile(name string) (Profile, bool) {
	if name == "" {
		name = DefaultProfile
	}
	f, ok := profiles[name]
	if !ok {
		return Profile{}, false
	}
	return f(), true
}

// profileOf resolves a Config's profile; an unknown name falls back to
// the default (the lab validates names before it starts a BMC).
func profileOf(name string) Profile {
	p, ok := LookupProfile(name)
	if !ok {
		p, _ = LookupProfile(DefaultProfile)
	}
	return p
}

// drives is how many media states the profile's slots share.
func (p *Profile) drives() int {
	n := 0
	for _, s := range append(append([]Slot(nil), p.SystemMedia...), p.ManagerMedia...) {
		if s.Drive+1 > n {
			n = s.Drive + 1
		}
	}
	return n
}

// AllowedProfiles is the list for error messages.
func AllowedProfiles() string { return strings.Join(ProfileNames(), ", ") }
