package bmc

import (
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/model"
)

// CredentialRef says where a BMC's credentials live. Activities resolve it
// themselves, so no secret travels through Temporal inputs, results or
// history. It mirrors an inventory bmcCredentials entry: one of the env var
// or the file for each of username and password, or a Kubernetes Secret.
type CredentialRef struct {
	UsernameEnv, PasswordEnv   string
	UsernameFile, PasswordFile string
	// SecretNamespace/SecretName: a Secret with keys username and password,
	// read by a worker running in the cluster that holds it.
	SecretNamespace string `json:",omitempty"`
	SecretName      string `json:",omitempty"`
}

// RefOf is the reference an inventory's bmcCredentials entry makes.
func RefOf(c model.CredentialRef) CredentialRef {
	r := CredentialRef{UsernameEnv: c.UsernameEnv, PasswordEnv: c.PasswordEnv, UsernameFile: c.UsernameFile, PasswordFile: c.PasswordFile}
	if c.SecretRef != nil {
		r.SecretNamespace, r.SecretName = c.SecretRef.Namespace, c.SecretRef.Name
	}
	return r
}

// Endpoint is one BMM's BMC.
type Endpoint struct {
	BMM                string
	Address            string // "https://10.1.0.11"; without a scheme https is assumed
	Credentials        CredentialRef
	CAFile             string // PEM bundle the BMC's certificate is verified against; "": system roots
	InsecureSkipVerify bool   // TLS verification is on unless this is set
	// BootMode is the firmware mode the installer boots in (model.BootModes;
	// "": model.DefaultBootMode), set with the one-time boot (bootmode.go).
	BootMode string `json:",omitempty"`
}

// conn is what a Dialer needs of ep: where the BMC answers and how its
// certificate is checked.
func (ep Endpoint) conn() bmcclient.Endpoint {
	return bmcclient.Endpoint{Address: ep.Address, CAFile: ep.CAFile, InsecureSkipVerify: ep.InsecureSkipVerify}
}

// PowerOffInput asks for a graceful shutdown (falling back to ForceOff
// after Activities.ShutdownTimeout) unless SkipShutdown.
type PowerOffInput struct {
	Endpoint
	SkipShutdown bool
}

// ReimageInput boots the installer at ImageURL (an ISO the BMC mounts as a
// virtual CD) to install Version. The BMC step only starts the install; the
// caller judges completion in band (the node's new boot at Version).
type ReimageInput struct {
	Endpoint
	ImageURL string
	Version  string
	// Force is kept so older payloads still decode; it is ignored: every
	// call reimages (a retry whose predecessor issued the reset does not).
	Force bool
}

// ReimageResult says the reset that boots the installer took effect.
type ReimageResult struct {
	Version         string
	PreviousVersion string // "": the BMC is not asked (the node knows)
	Reimaged        bool   // a reset was issued, now or by an earlier attempt
	Task            string // the reset's task monitor URI when the BMC answered 202, else ""
	LastState       string // what the BMC showed when the reset took effect, e.g. "PowerState On, BootProgress OEM"
	// BootOverride is "Continuous" when the BMC turned the one-time boot
	// from the CD into a lasting one; EjectMedia clears it.
	BootOverride string `json:",omitempty"`
}

// EjectInput names the installer to take out of the virtual CD.
type EjectInput struct {
	Endpoint
	ImageURL string
}

// WatchInput watches a reimage in flight for the BMC's hints of failure.
// Zero limits take the defaults (OffLimit 10m, SilenceLimit 5m).
type WatchInput struct {
	Endpoint
	Task         string // the reset's task monitor (ReimageResult.Task), "" when none
	OffLimit     time.Duration
	SilenceLimit time.Duration
	// StuckLimit: how long BootProgress may stay in POST after the
	// installer's boot showed (see noOSBooted); 0: 10 minutes.
	StuckLimit time.Duration
}

// PowerStatus is the System's PowerState and Status.Health as the BMC
// reports them (e.g. "On"/"Off"/"PoweringOn", "OK"/"Warning"/"Critical").
type PowerStatus struct {
	PowerState string
	Health     string
}
