package gofishclient

import (
	"context"
	"encoding/json"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// Firmware reads the System and the FirmwareInventory. Members are read
// one GET each (gofish); a BMC without an UpdateService or a
// FirmwareInventory is refused: its firmware cannot be known.
func (c *client) Firmware(ctx context.Context) (firmware.Server, error) {
	sys, err := c.system(ctx)
	if err != nil {
		return firmware.Server{}, err
	}
	out := firmware.Server{Manufacturer: sys.Manufacturer, Model: sys.Model}
	err = c.call(ctx, func(api *gofish.APIClient) error {
		us, err := updateService(api)
		if err != nil {
			return err
		}
		items, err := us.FirmwareInventory()
		if err != nil {
			return err
		}
		if items == nil {
			return rejected("the BMC's UpdateService lists no FirmwareInventory")
		}
		out.Items = out.Items[:0]
		for _, it := range items {
			out.Items = append(out.Items, firmware.Item{ID: it.ID, Name: it.Name, Version: it.Version,
				Updateable: it.Updateable, RelatedItem: relatedItems(it.RawData)})
		}
		return nil
	})
	return out, err
}

// relatedItems reads RelatedItem's URIs from a member's raw JSON (gofish
// keeps them private and resolves them with a GET each).
func relatedItems(raw []byte) []string {
	var d struct {
		RelatedItem []struct {
			ID string `json:"@odata.id"`
		}
	}
	if json.Unmarshal(raw, &d) != nil {
		return nil
	}
	var out []string
	for _, r := range d.RelatedItem {
		out = append(out, r.ID)
	}
	return out
}

// updateService reads the UpdateService; a BMC without one is refused.
// It runs inside a call, so a new session after a 401 reads it again.
func updateService(api *gofish.APIClient) (*schemas.UpdateService, error) {
	us, err := api.Service.UpdateService()
	if err == nil && us == nil {
		err = rejected("the BMC offers no UpdateService")
	}
	return us, err
}
