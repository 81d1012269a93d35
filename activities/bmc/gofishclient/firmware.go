package gofishclient

import (
	"encoding/json"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

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
