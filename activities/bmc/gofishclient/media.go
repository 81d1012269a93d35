package gofishclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// MediaCollections finds the System's VirtualMedia collection (iDRAC 6.x+
// and most BMCs), then each managing Manager's (older iDRAC, iLO,
// Supermicro, XCC).
func (c *client) MediaCollections(ctx context.Context) ([]bmcclient.MediaCollection, error) {
	sys, err := c.system(ctx)
	if err != nil {
		return nil, err
	}
	var d struct {
		VirtualMedia link
		Links        struct{ ManagedBy []link }
	}
	if err := json.Unmarshal(sys.RawData, &d); err != nil {
		return nil, fmt.Errorf("read the System: %w", err)
	}
	var out []bmcclient.MediaCollection
	if d.VirtualMedia.ID != "" {
		out = append(out, bmcclient.MediaCollection{URI: d.VirtualMedia.ID, Location: "System"})
	}
	managers := d.Links.ManagedBy
	if len(managers) == 0 {
		var ms struct{ Members []link }
		if err := c.getJSON(ctx, "/redfish/v1/Managers", &ms); err != nil {
			return nil, err
		}
		managers = ms.Members
	}
	for _, m := range managers {
		var md struct{ VirtualMedia link }
		if err := c.getJSON(ctx, m.ID, &md); err != nil {
			return nil, err
		}
		if md.VirtualMedia.ID != "" {
			out = append(out, bmcclient.MediaCollection{URI: md.VirtualMedia.ID, Location: "Manager"})
		}
	}
	return out, nil
}

type link struct {
	ID string `json:"@odata.id"`
}

// MediaMembers lists a collection's members (a missing one lists none).
func (c *client) MediaMembers(ctx context.Context, coll bmcclient.MediaCollection) ([]string, error) {
	var d struct{ Members []link }
	err := c.getJSON(ctx, coll.URI, &d)
	if bmcclient.NotFound(err) {
		return nil, nil
	}
	var out []string
	for _, m := range d.Members {
		out = append(out, m.ID)
	}
	return out, err
}

func (c *client) getJSON(ctx context.Context, uri string, v any) error {
	return c.call(ctx, func(api *gofish.APIClient) error {
		resp, err := api.Get(uri)
		defer schemas.DeferredCleanupHTTPResponse(resp)
		if err != nil {
			return err
		}
		return json.NewDecoder(resp.Body).Decode(v)
	})
}

func mediaInfo(vm *schemas.VirtualMedia, loc string) bmcclient.MediaInfo {
	m := bmcclient.MediaInfo{
		URI: vm.ODataID, ID: vm.ID, Location: loc,
		ConnectedVia: string(vm.ConnectedVia), Image: vm.Image, ImageName: vm.ImageName, Inserted: gofish.Deref(vm.Inserted),
		InsertTarget: actionTarget(vm.RawData, "#VirtualMedia.InsertMedia"),
		EjectTarget:  actionTarget(vm.RawData, "#VirtualMedia.EjectMedia"),
	}
	for _, t := range vm.MediaTypes {
		m.MediaTypes = append(m.MediaTypes, string(t))
	}
	return m
}

func (c *client) Medium(ctx context.Context, m bmcclient.MediaInfo) (bmcclient.MediaInfo, error) {
	var out bmcclient.MediaInfo
	err := c.call(ctx, func(api *gofish.APIClient) error {
		vm, err := schemas.GetObject[schemas.VirtualMedia](api, m.URI)
		if err == nil {
			out = mediaInfo(vm, m.Location)
		}
		return err
	})
	return out, err
}

func (c *client) InsertMedia(ctx context.Context, m bmcclient.MediaInfo, p bmcclient.InsertParams) (string, error) {
	body := map[string]any{"Image": p.Image}
	if p.Inserted != nil {
		body["Inserted"] = *p.Inserted
	}
	if p.WriteProtected != nil {
		body["WriteProtected"] = *p.WriteProtected
	}
	if p.TransferProtocolType != "" {
		body["TransferProtocolType"] = p.TransferProtocolType
	}
	if m.InsertTarget == "" { // no action (Lenovo XCC): PATCH the member
		return "", c.patchMedia(ctx, m.URI, body)
	}
	return c.postMedia(ctx, m.InsertTarget, body)
}

func (c *client) EjectMedia(ctx context.Context, m bmcclient.MediaInfo) (string, error) {
	if m.EjectTarget == "" {
		return "", c.patchMedia(ctx, m.URI, map[string]any{"Image": nil, "Inserted": false})
	}
	return c.postMedia(ctx, m.EjectTarget, map[string]any{})
}

// patchMedia is a media action by PATCH, bounded by ctx alone.
func (c *client) patchMedia(ctx context.Context, uri string, body any) error {
	return c.callWith(ctx, c.unbounded, func(api *gofish.APIClient) error {
		resp, err := api.Patch(uri, body)
		schemas.DeferredCleanupHTTPResponse(resp)
		return err
	})
}
