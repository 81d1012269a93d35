package keyset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

var (
	keysetName  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	osUser      = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)
	bmcUser     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$`)
	dnsLabel    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSub      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	secretKey   = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
	nameLetters = regexp.MustCompile(`^[A-Za-z0-9._-]*$`)
)

// reservedOS are users a keyset may not manage: the system's own and the
// console user the documents keep for access during an upgrade.
var reservedOS = []string{"root", "daemon", "bin", "sys", "adm", "nobody", "sshd", "console"}

// OSUserProblem says why name may not be a keyset's OS user, "" when it
// may: the node program (internal/keyset/nodeapply) asks again before it
// touches a node, as a ledger of an older build may hold other names.
func OSUserProblem(name string) string {
	switch {
	case !osUser.MatchString(name):
		return "not an OS user name: a lowercase letter or '_', then lowercase letters, digits, '_', '-'; 32 characters at most"
	case reserved(reservedOS, name, false):
		return "reserved (not allowed: " + strings.Join(reservedOS, ", ") + ")"
	}
	return ""
}

// reservedBMC are the vendors' built-in BMC accounts (iDRAC root, iLO
// Administrator, Supermicro ADMIN): not a keyset's to change.
var reservedBMC = []string{"root", "admin", "administrator"}

// Check validates s at now, naming every problem (field, value, what is
// allowed) in one *model.ValidationError, and returns s with each user's
// key type and fingerprint derived from the key. Values that may be
// secrets (a key field holding something else, a reference holding a
// password) are never quoted.
func Check(s Spec, now time.Time) (Spec, error) {
	var e model.ValidationError
	switch {
	case s.Name == "":
		e.Add("name", "", "required: the keyset's name, a DNS label (lowercase letters, digits, '-')")
	case len(s.Name) > 63 || !keysetName.MatchString(s.Name):
		e.Add("name", s.Name, "a DNS label of at most 63 characters: lowercase letters, digits, '-'")
	}
	text(&e, "description", s.Description)
	switch {
	case s.Expiration.IsZero():
		e.Add("expiration", "", "required: when the access ends, an RFC 3339 time such as "+now.Add(30*24*time.Hour).UTC().Format(time.RFC3339))
	case !s.Expiration.After(now):
		e.Add("expiration", s.Expiration.UTC().Format(time.RFC3339), "in the past (now is "+now.UTC().Format(time.RFC3339)+"): give a time to come")
	}
	switch s.Kind {
	case KindBMM:
		s.Users = checkBMM(&e, s)
	case KindBMC:
		checkBMC(&e, s)
	case "":
		e.Add("kind", "", "required: bmm (OS users with SSH public keys) or bmc (BMC accounts)")
	default:
		e.Add("kind", string(s.Kind), "allowed: bmm (OS users with SSH public keys), bmc (BMC accounts)")
	}
	return s, e.Err()
}

func checkBMM(e *model.ValidationError, s Spec) []User {
	switch s.PrivilegeLevel {
	case Standard, Superuser:
	case "":
		e.Add("privilegeLevel", "", "required for a bmm keyset: standard or superuser")
	default:
		e.Add("privilegeLevel", string(s.PrivilegeLevel), "allowed: standard, superuser")
	}
	if s.Role != "" {
		e.Add("role", string(s.Role), "only for a bmc keyset: a bmm keyset has privilegeLevel")
	}
	if len(s.Accounts) > 0 {
		e.Add("accounts", strconv.Itoa(len(s.Accounts)), "only for a bmc keyset: a bmm keyset has users")
	}
	switch n := len(s.Users); {
	case n == 0:
		e.Add("users", "", "required: at least one user with name and sshPublicKey")
	case n > MaxUsers:
		e.Addf("users", strconv.Itoa(n), "at most %d users in a keyset: split it", MaxUsers)
	}
	users := make([]User, len(s.Users))
	names, keys := map[string]int{}, map[string]int{}
	for i, u := range s.Users {
		f := fmt.Sprintf("users[%d]", i)
		switch {
		case u.Name == "":
			e.Add(f+".name", "", "required: the OS user name")
		case !osUser.MatchString(u.Name):
			e.Add(f+".name", u.Name, "an OS user name: a lowercase letter or '_', then lowercase letters, digits, '_', '-'; 32 characters at most")
		case reserved(reservedOS, u.Name, false):
			e.Add(f+".name", u.Name, "reserved (not allowed: "+strings.Join(reservedOS, ", ")+")")
		default:
			if j, dup := names[u.Name]; dup {
				e.Addf(f+".name", u.Name, "duplicate: users[%d] has the same name; a user is listed once", j)
			}
			names[u.Name] = i
		}
		text(e, f+".description", u.Description)
		u.KeyType, u.Fingerprint = "", ""
		if u.SSHPublicKey == "" {
			e.Add(f+".sshPublicKey", "", "required: the user's OpenSSH public key, one line (\"ssh-ed25519 AAAA... comment\", the .pub file)")
		} else if k, err := ParsePublicKey(strings.TrimSpace(u.SSHPublicKey)); err != nil {
			e.Add(f+".sshPublicKey", "(not shown)", err.Error())
		} else {
			u.KeyType, u.Fingerprint = k.Type, k.Fingerprint
			if j, dup := keys[k.Fingerprint]; dup {
				e.Addf(f+".sshPublicKey", k.Fingerprint, "the same key as users[%d]: each user has a key of their own", j)
			}
			keys[k.Fingerprint] = i
		}
		users[i] = u
	}
	return users
}

func checkBMC(e *model.ValidationError, s Spec) {
	switch s.Role {
	case Administrator, Operator, ReadOnly:
	case "":
		e.Add("role", "", "required for a bmc keyset: Administrator, Operator or ReadOnly")
	default:
		e.Add("role", string(s.Role), "allowed: Administrator, Operator, ReadOnly (the Redfish roles)")
	}
	if s.PrivilegeLevel != "" {
		e.Add("privilegeLevel", string(s.PrivilegeLevel), "only for a bmm keyset: a bmc keyset has role")
	}
	if len(s.Users) > 0 {
		e.Add("users", strconv.Itoa(len(s.Users)), "only for a bmm keyset: a bmc keyset has accounts")
	}
	switch n := len(s.Accounts); {
	case n == 0:
		e.Add("accounts", "", "required: at least one account with name and passwordSecretRef")
	case n > MaxAccounts:
		e.Addf("accounts", strconv.Itoa(n), "at most %d accounts in a keyset: a BMC has few account slots", MaxAccounts)
	}
	names := map[string]int{}
	for i, a := range s.Accounts {
		f := fmt.Sprintf("accounts[%d]", i)
		switch {
		case a.Name == "":
			e.Add(f+".name", "", "required: the BMC user name")
		case !bmcUser.MatchString(a.Name):
			e.Add(f+".name", a.Name, "a BMC user name: 1 to 16 letters, digits, '.', '_', '-', starting with a letter or digit")
		case reserved(reservedBMC, a.Name, true):
			e.Add(f+".name", a.Name, "a BMC's built-in account (not allowed: root, admin, Administrator in any case)")
		default:
			if j, dup := names[strings.ToLower(a.Name)]; dup {
				e.Addf(f+".name", a.Name, "duplicate: accounts[%d] has the same name (BMCs compare names without case)", j)
			}
			names[strings.ToLower(a.Name)] = i
		}
		text(e, f+".description", a.Description)
		checkSecretRef(e, f+".passwordSecretRef", a.PasswordSecretRef)
	}
}

// checkSecretRef checks a reference to a Secret's value. A value that is
// not a valid name and looks like a password is taken for one: it is not
// quoted, and the message says what a reference is.
func checkSecretRef(e *model.ValidationError, f string, r SecretRef) {
	const what = "the password goes in a Kubernetes Secret; here its namespace, name and key"
	for _, p := range []struct {
		field, value, rule string
		ok                 bool
	}{
		{"namespace", r.Namespace, "a namespace: a DNS label (lowercase letters, digits, '-'; 63 at most)", len(r.Namespace) <= 63 && dnsLabel.MatchString(r.Namespace)},
		{"name", r.Name, "a Secret's name: lowercase letters, digits, '-', '.'; 253 at most", len(r.Name) <= 253 && dnsSub.MatchString(r.Name)},
		{"key", r.Key, "a key of the Secret: letters, digits, '-', '_', '.'; 253 at most", len(r.Key) <= 253 && secretKey.MatchString(r.Key)},
	} {
		switch {
		case p.value == "":
			e.Add(f+"."+p.field, "", "required: "+what)
		case p.ok:
		case LooksLikePassword(p.value):
			e.Add(f+"."+p.field, "(redacted)", "looks like a password, not a reference: "+what+" ("+p.rule+")")
		default:
			e.Add(f+"."+p.field, p.value, p.rule)
		}
	}
}

// LooksLikePassword: a value that no Kubernetes name could be (a space or
// a symbol) or that mixes upper case, lower case and digits the way
// generated passwords do. Used only on values that already failed a name
// check, to decide whether to quote them.
func LooksLikePassword(v string) bool {
	if !nameLetters.MatchString(v) {
		return true
	}
	var upper, lower, digit bool
	for _, r := range v {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// text checks a free-text field: one line, printable, bounded.
func text(e *model.ValidationError, f, v string) {
	switch {
	case len(v) > MaxDescription:
		e.Addf(f, v[:40]+"...", "%d characters: at most %d", len(v), MaxDescription)
	case strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		e.Add(f, strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, v), "one line of text: no line breaks or control characters")
	}
}

func reserved(list []string, name string, foldCase bool) bool {
	for _, r := range list {
		if r == name || (foldCase && strings.EqualFold(r, name)) {
			return true
		}
	}
	return false
}
