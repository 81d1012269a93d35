package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"sigs.k8s.io/yaml"
)

// ParseInventory reads an inventory strictly. YAML errors, unknown fields,
// values of the wrong type and inline secrets are reported together as a
// *ValidationError. It checks the shape only: call Validate for the meaning,
// or ParseValid for both.
func ParseInventory(data []byte) (*Inventory, error) {
	var inv Inventory
	if err := Decode(data, &inv); err != nil {
		return nil, err
	}
	return &inv, nil
}

// Decode reads YAML (or JSON) into out, a pointer to a struct, with the
// inventory's strict checks: YAML errors, unknown fields, values of the wrong
// type and inline secrets are reported together as a *ValidationError.
// A package that owns a section the model carries opaque (Inventory.Lab)
// reads it with Decode, so the section gets the same checks and messages.
func Decode(data []byte, out any) error {
	var e ValidationError
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		e.Add("inventory", "", "not valid YAML: "+err.Error())
		return &e
	}
	var doc any
	if err := json.Unmarshal(j, &doc); err != nil {
		e.Add("inventory", "", "not valid YAML: "+err.Error())
		return &e
	}
	if doc == nil {
		e.Add("inventory", "", "empty: see examples/ for a complete inventory")
		return &e
	}
	checkShape(&e, "", doc, reflect.TypeOf(out))
	if err := e.Err(); err != nil {
		return err
	}
	// The shape check found nothing, so strict decoding is a safety net; it
	// also turns YAML scalars into strings where the field wants one.
	if err := yaml.UnmarshalStrict(data, out); err != nil {
		e.Add("inventory", "", err.Error())
		return &e
	}
	return nil
}

// ParseValid parses data and checks what it means with validate (such as
// (*Inventory).Validate), listing every problem of the file at once: a field
// the model does not know, an inline password say, does not hide what is
// wrong elsewhere. Only a file too broken to read at all (not YAML, values of
// the wrong type) gets its shape problems alone.
func ParseValid(data []byte, validate func(*Inventory) error) (*Inventory, error) {
	inv, shape := ParseInventory(data)
	if shape == nil {
		if err := validate(inv); err != nil {
			return nil, err
		}
		return inv, nil
	}
	// Read what can be read, leaving out the values the shape check refused
	// (it removes them from the document).
	var loose Inventory
	if !readLoose(data, &loose) {
		return nil, shape
	}
	var e ValidationError
	e.AddErr("", shape)
	var meaning ValidationError
	meaning.AddErr("", validate(&loose))
	for _, p := range meaning.Problems {
		if !refused(shape, p.Field) { // "racks: required" says nothing more than "racks: expected a list"
			e.Problems = append(e.Problems, p)
		}
	}
	return nil, &e
}

// refused: the shape check already named field, or a field it is part of.
func refused(shape error, field string) bool {
	var ve *ValidationError
	if !errors.As(shape, &ve) {
		return false
	}
	for _, p := range ve.Problems {
		if field == p.Field || strings.HasPrefix(field, p.Field+".") || strings.HasPrefix(field, p.Field+"[") {
			return true
		}
	}
	return false
}

// LoadInventory reads and parses the inventory file at path.
func LoadInventory(path string) (*Inventory, error) {
	return load(path, ParseInventory, "inventory %s:\n%w")
}

// LoadValid reads the inventory file at path and checks it with validate,
// every problem at once (ParseValid).
func LoadValid(path string, validate func(*Inventory) error) (*Inventory, error) {
	return load(path, func(data []byte) (*Inventory, error) { return ParseValid(data, validate) }, "%s is not valid:\n%w")
}

func load(path string, parse func([]byte) (*Inventory, error), problems string) (*Inventory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read inventory: %w", err)
	}
	inv, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf(problems, path, err)
	}
	return inv, nil
}

// readLoose reads data into out without the values the shape check refuses.
func readLoose(data []byte, out *Inventory) bool {
	j, err := yaml.YAMLToJSONStrict(data)
	var doc any
	if err != nil || json.Unmarshal(j, &doc) != nil {
		return false
	}
	checkShape(&ValidationError{}, "", doc, reflect.TypeOf(out))
	kept, err := yaml.Marshal(doc)
	return err == nil && yaml.Unmarshal(kept, out) == nil
}
