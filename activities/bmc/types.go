package bmc

// CredentialRef says where a BMC's credentials live. Activities resolve it
// themselves, so no secret travels through Temporal inputs, results or
// history. It mirrors an inventory bmcCredentials entry: one of the env var
// or the file for each of username and password.
type CredentialRef struct {
	UsernameEnv, PasswordEnv   string
	UsernameFile, PasswordFile string
}

// Endpoint is one BMM's BMC.
type Endpoint struct {
	BMM                string
	Address            string // "https://10.1.0.11"; without a scheme https is assumed
	Credentials        CredentialRef
	CAFile             string // PEM bundle the BMC's certificate is verified against; "": system roots
	InsecureSkipVerify bool   // TLS verification is on unless this is set
}

// PowerOffInput asks for a graceful shutdown (falling back to ForceOff
// after Activities.ShutdownTimeout) unless SkipShutdown.
type PowerOffInput struct {
	Endpoint
	SkipShutdown bool
}

// ReimageInput installs Version from ImageURL (an installer ISO the BMC
// mounts as a virtual CD).
type ReimageInput struct {
	Endpoint
	ImageURL string
	Version  string
	// Force reinstalls even when the machine already runs Version (the
	// Reimage and Replace actions restore a known-good OS at the same
	// version). A retry whose predecessor issued the reset still does not
	// reimage twice.
	Force bool
}

// ReimageResult says what the machine runs now. Reimaged is false when the
// machine already ran Version (for example on a retry after the reimage
// completed), so the caller can tell a no-op from a reimage.
type ReimageResult struct {
	Version         string
	PreviousVersion string // "" when the BMC does not report the installed version
	Reimaged        bool
	// Task is the reset's task monitor, when the BMC gave one (WatchReimage
	// follows it); LastState is the BMC's view when the reset took effect.
	Task      string `json:",omitempty"`
	LastState string `json:",omitempty"`
}

// PowerStatus is the System's PowerState and Status.Health as the BMC
// reports them (e.g. "On"/"Off"/"PoweringOn", "OK"/"Warning"/"Critical").
type PowerStatus struct {
	PowerState string
	Health     string
}
