package model

import (
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// ParseInventory reads an inventory strictly. YAML errors, unknown fields,
// values of the wrong type and inline secrets are reported together as a
// *ValidationError. It checks the shape only: call Validate for the meaning.
func ParseInventory(data []byte) (*Inventory, error) {
	var e ValidationError
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		e.Add("inventory", "", "not valid YAML: "+err.Error())
		return nil, &e
	}
	var doc any
	if err := json.Unmarshal(j, &doc); err != nil {
		e.Add("inventory", "", "not valid YAML: "+err.Error())
		return nil, &e
	}
	if doc == nil {
		e.Add("inventory", "", "empty: see examples/ for a complete inventory")
		return nil, &e
	}
	checkShape(&e, "", doc, inventoryType)
	if err := e.Err(); err != nil {
		return nil, err
	}
	// The shape check found nothing, so strict decoding is a safety net; it
	// also turns YAML scalars into strings where the field wants one.
	var inv Inventory
	if err := yaml.UnmarshalStrict(data, &inv); err != nil {
		e.Add("inventory", "", err.Error())
		return nil, &e
	}
	return &inv, nil
}

// LoadInventory reads and parses the inventory file at path.
func LoadInventory(path string) (*Inventory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read inventory: %w", err)
	}
	inv, err := ParseInventory(data)
	if err != nil {
		return nil, fmt.Errorf("inventory %s:\n%w", path, err)
	}
	return inv, nil
}
