package gofishclient

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
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

// updateTargets are the SimpleUpdate target and the MultipartHttpPushUri
// ("" when the BMC offers none).
func (c *client) updateTargets(ctx context.Context) (simple, push string, err error) {
	err = c.call(ctx, func(api *gofish.APIClient) error {
		us, err := updateService(api)
		if err == nil {
			simple, push = actionTarget(us.RawData, "#UpdateService.SimpleUpdate"), us.MultipartHTTPPushURI
		}
		return err
	})
	return simple, push, err
}

// SimpleUpdate posts UpdateService.SimpleUpdate: the BMC fetches image.
// applyTime "" leaves @Redfish.OperationApplyTime out (the BMC's default).
func (c *client) SimpleUpdate(ctx context.Context, image, applyTime string) (bmcclient.Accepted, error) {
	target, _, err := c.updateTargets(ctx)
	if err != nil {
		return bmcclient.Accepted{}, err
	}
	if target == "" {
		return bmcclient.Accepted{}, rejected("the BMC's UpdateService offers no SimpleUpdate action (it may take pushed images: apply.method MultipartPush)")
	}
	body := map[string]any{"ImageURI": image}
	if u, err := url.Parse(image); err == nil && u.Scheme != "" {
		body["TransferProtocol"] = strings.ToUpper(u.Scheme)
	}
	if applyTime != "" {
		body["@Redfish.OperationApplyTime"] = applyTime
	}
	return c.action(ctx, target, body)
}

// PushUpdate posts file to the MultipartHttpPushUri as the parts
// UpdateParameters (JSON) and UpdateFile (DSP0266 multipart HTTP push).
func (c *client) PushUpdate(ctx context.Context, file *os.File, applyTime string) (bmcclient.Accepted, error) {
	_, push, err := c.updateTargets(ctx)
	if err != nil {
		return bmcclient.Accepted{}, err
	}
	if push == "" {
		return bmcclient.Accepted{}, rejected("the BMC's UpdateService has no MultipartHttpPushUri (use apply.method SimpleUpdate)")
	}
	params := `{"Targets": []}`
	if applyTime != "" {
		params = `{"Targets": [], "@Redfish.OperationApplyTime": "` + applyTime + `"}`
	}
	payload := map[string]io.Reader{"UpdateParameters": strings.NewReader(params), "UpdateFile": file}
	return c.send(ctx, nil, push, payload, true, func() error {
		_, err := file.Seek(0, io.SeekStart)
		return err
	})
}
