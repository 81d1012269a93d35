// Package keyset is the domain of access keysets (docs/keysets.md): who may
// log in to a cluster's servers (a BMM keyset: OS users with SSH public
// keys) and to their BMCs (a BMC keyset: BMC accounts whose password is a
// reference to a Kubernetes Secret), with what privilege and until when.
// It validates what an operator writes, every problem at once, and derives
// what may be shown of a keyset (fingerprints, never key material). Pure:
// no Temporal, no I/O.
package keyset

import (
	"slices"
	"time"
)

// Kind says what a keyset gives access to.
type Kind string

// Kinds.
const (
	KindBMM Kind = "bmm" // the servers' OS: users with SSH public keys
	KindBMC Kind = "bmc" // the servers' BMCs: Redfish accounts
)

// Privilege is what a BMM keyset's users may do on the OS.
type Privilege string

// BMM privilege levels.
const (
	Standard  Privilege = "standard"  // a login without sudo
	Superuser Privilege = "superuser" // a login with sudo
)

// Role is a BMC keyset's Redfish role (AccountService RoleId); the
// predefined Redfish roles are the ones every BMC knows.
type Role string

// BMC roles.
const (
	Administrator Role = "Administrator"
	Operator      Role = "Operator"
	ReadOnly      Role = "ReadOnly"
)

// Limits: a keyset lives in the ledger's state (and in every carried
// continue-as-new input), so its size is bounded; a BMC has few account
// slots (commonly 16, some taken by the vendor and by rackroll itself).
const (
	MaxKeysets     = 32
	MaxUsers       = 100
	MaxAccounts    = 8
	MaxDescription = 256
	MaxKeyLine     = 16 << 10
)

// Spec is a keyset as an operator writes it (`starter keyset create
// --file`) and as the ledger's keyset Updates carry it. A BMM keyset has
// privilegeLevel and users; a BMC keyset has role and accounts. The
// privilege (or role) and the expiration are the keyset's: two levels of
// access are two keysets, each with its own expiry.
type Spec struct {
	Name           string    `json:"name"`
	Kind           Kind      `json:"kind"`
	Description    string    `json:"description,omitempty"`
	PrivilegeLevel Privilege `json:"privilegeLevel,omitempty"`
	Role           Role      `json:"role,omitempty"`
	Expiration     time.Time `json:"expiration"`
	Users          []User    `json:"users,omitempty"`
	Accounts       []Account `json:"accounts,omitempty"`
}

// User is one OS user of a BMM keyset. SSHPublicKey is an OpenSSH
// authorized_keys line without options ("<type> <base64> [comment]").
// KeyType and Fingerprint are derived from it by Check (what a file says
// there is replaced); they are what output shows of the key.
type User struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	SSHPublicKey string `json:"sshPublicKey,omitempty"`
	KeyType      string `json:"keyType,omitempty"`
	Fingerprint  string `json:"fingerprint,omitempty"`
}

// Account is one BMC account of a BMC keyset. Its password is never in
// the keyset: PasswordSecretRef names the Kubernetes Secret (and the key
// in it) the applying activity reads it from.
type Account struct {
	Name              string    `json:"name"`
	Description       string    `json:"description,omitempty"`
	PasswordSecretRef SecretRef `json:"passwordSecretRef"`
}

// SecretRef names one value of a Kubernetes Secret.
type SecretRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Key       string `json:"key"`
}

// Keyset is a keyset as the ledger keeps it: the operator's spec (checked,
// fingerprints derived) and when and by whom it was last written.
type Keyset struct {
	Spec
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	By      string    `json:"by,omitempty"`
	// Outcomes are what applying this version did on each BMM's BMC (a
	// BMC keyset) or node (a BMM keyset: the set it was part of; outcome.go).
	// A BMM without one is pending.
	Outcomes []Outcome `json:"outcomes,omitempty"`
}

// Redacted is k without key material: what queries, the CLI and other
// workflows' histories get. A public key is not a secret, but output
// names keys by fingerprint only, so that no output is one paste away
// from an authorized_keys file.
func (k Keyset) Redacted() Keyset {
	k.Users = slices.Clone(k.Users)
	for i := range k.Users {
		k.Users[i].SSHPublicKey = ""
	}
	return k
}

// Expired reports whether k's access is over at now.
func (k Keyset) Expired(now time.Time) bool { return !now.Before(k.Expiration) }

// Members are the names of k's users or accounts, in k's order.
func (s Spec) Members() []string {
	var out []string
	for _, u := range s.Users {
		out = append(out, u.Name)
	}
	for _, a := range s.Accounts {
		out = append(out, a.Name)
	}
	return out
}

// Level is the keyset's privilege level or BMC role, as text.
func (s Spec) Level() string {
	if s.Kind == KindBMC {
		return string(s.Role)
	}
	return string(s.PrivilegeLevel)
}

// Find returns the keyset named name in list and whether there is one.
func Find(list []Keyset, name string) (Keyset, bool) {
	i := slices.IndexFunc(list, func(k Keyset) bool { return k.Name == name })
	if i < 0 {
		return Keyset{}, false
	}
	return list[i], true
}
