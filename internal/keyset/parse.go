package keyset

import (
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// Parse reads a keyset file (YAML or JSON) strictly, with the inventory's
// checks (model.Decode: unknown fields, wrong types and inline secrets,
// every one named), and then checks what it says at now (Check). Messages
// are the keyset's: the document is "keyset", an inline password points
// to passwordSecretRef.
func Parse(data []byte, now time.Time) (Spec, error) {
	var s Spec
	if err := model.Decode(data, &s); err != nil {
		return Spec{}, reword(err)
	}
	return Check(s, now)
}

// reword turns model.Decode's problems, written for inventories, into a
// keyset's.
func reword(err error) error {
	ve, ok := err.(*model.ValidationError)
	if !ok {
		return err
	}
	out := &model.ValidationError{}
	for _, p := range ve.Problems {
		switch {
		case p.Field == "inventory":
			p.Field = "keyset"
			p.Message = strings.Replace(p.Message, "see examples/ for a complete inventory", "see docs/keysets.md for a complete keyset", 1)
		case strings.HasPrefix(p.Message, "inline secrets are not allowed") && strings.HasSuffix(strings.ToLower(p.Field), "username"):
			p.Message = "unknown field: an account's user name is its name field"
		case strings.HasPrefix(p.Message, "inline secrets are not allowed"):
			p.Message = "inline secrets are not allowed: a BMC account's password is named by passwordSecretRef {namespace, name, key}, a Kubernetes Secret"
		case p.Field == "expiration" || strings.HasSuffix(p.Field, ".expiration"):
			p.Message = "expected an RFC 3339 time such as 2027-01-31T00:00:00Z"
		}
		out.Problems = append(out.Problems, p)
	}
	return out
}
