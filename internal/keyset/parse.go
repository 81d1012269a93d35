package keyset

import (
	"errors"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"sigs.k8s.io/yaml"
)

// Parse reads a keyset file (YAML or JSON) strictly, with the inventory's
// checks (model.Decode: unknown fields, wrong types and inline secrets,
// every one named), and then checks what it says at now (Check). Messages
// are the keyset's: the document is "keyset", an inline password points
// to passwordSecretRef.
func Parse(data []byte, now time.Time) (Spec, error) {
	var s Spec
	shape := model.Decode(data, &s)
	if shape == nil {
		return Check(s, now)
	}
	// As model.ParseValid does for inventories: what can be read without
	// the refused values is checked too, so an inline password does not
	// hide what is wrong elsewhere.
	var loose Spec
	if yaml.Unmarshal(data, &loose) != nil {
		return Spec{}, reword(shape)
	}
	e := reword(shape).(*model.ValidationError)
	_, meaning := Check(loose, now)
	var ve *model.ValidationError
	if errors.As(meaning, &ve) {
		for _, p := range ve.Problems {
			if !named(e, p.Field) {
				e.Problems = append(e.Problems, p)
			}
		}
	}
	return Spec{}, e
}

// named: shape already has a problem at field or at a field it is part of.
func named(shape *model.ValidationError, field string) bool {
	for _, p := range shape.Problems {
		if field == p.Field || strings.HasPrefix(field, p.Field+".") || strings.HasPrefix(field, p.Field+"[") {
			return true
		}
	}
	return false
}

// reword turns model.Decode's problems, written for inventories, into a
// keyset's.
func reword(err error) error {
	ve, ok := err.(*model.ValidationError)
	if !ok {
		return &model.ValidationError{Problems: []model.Problem{{Field: "keyset", Message: err.Error()}}}
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
