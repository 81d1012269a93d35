package bmc

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// VirtualMedia lists the System's members (iDRAC 6.x+ and most BMCs), then
// each Manager's (older iDRAC, iLO, Supermicro, XCC); a missing collection
// lists none.
func (c *gofishClient) VirtualMedia(ctx context.Context) ([]MediaInfo, error) {
	sys, err := c.system(ctx)
	if err != nil {
		return nil, err
	}
	var out []MediaInfo
	err = c.call(ctx, func(api *gofish.APIClient) error {
		out = nil
		sys.SetClient(api)
		list, err := sys.VirtualMedia()
		if err != nil && !isNotFound(err) {
			return err
		}
		out = appendMedia(out, "System", list)
		managers, err := sys.ManagedBy()
		if err != nil || len(managers) == 0 {
			if managers, err = api.Service.Managers(); err != nil {
				return err
			}
		}
		for _, m := range managers {
			list, err := m.VirtualMedia()
			if err != nil && !isNotFound(err) {
				return err
			}
			out = appendMedia(out, "Manager", list)
		}
		return nil
	})
	return out, err
}

func appendMedia(out []MediaInfo, loc string, list []*schemas.VirtualMedia) []MediaInfo {
	for _, vm := range list {
		out = append(out, mediaInfo(vm, loc))
	}
	return out
}

func mediaInfo(vm *schemas.VirtualMedia, loc string) MediaInfo {
	m := MediaInfo{
		URI: vm.ODataID, ID: vm.ID, Location: loc,
		ConnectedVia: string(vm.ConnectedVia), Image: vm.Image, Inserted: gofish.Deref(vm.Inserted),
		InsertTarget: actionTarget(vm.RawData, "#VirtualMedia.InsertMedia"),
		EjectTarget:  actionTarget(vm.RawData, "#VirtualMedia.EjectMedia"),
	}
	for _, t := range vm.MediaTypes {
		m.MediaTypes = append(m.MediaTypes, string(t))
	}
	return m
}

func (c *gofishClient) Medium(ctx context.Context, m MediaInfo) (MediaInfo, error) {
	var out MediaInfo
	err := c.call(ctx, func(api *gofish.APIClient) error {
		vm, err := schemas.GetObject[schemas.VirtualMedia](api, m.URI)
		if err == nil {
			out = mediaInfo(vm, m.Location)
		}
		return err
	})
	return out, err
}

func (c *gofishClient) InsertMedia(ctx context.Context, m MediaInfo, p InsertParams) (string, error) {
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
		return "", c.patch(ctx, m.URI, body)
	}
	return c.post(ctx, m.InsertTarget, body)
}

func (c *gofishClient) EjectMedia(ctx context.Context, m MediaInfo) (string, error) {
	if m.EjectTarget == "" {
		return "", c.patch(ctx, m.URI, map[string]any{"Image": nil, "Inserted": false})
	}
	return c.post(ctx, m.EjectTarget, map[string]any{})
}

func (c *gofishClient) patch(ctx context.Context, uri string, body any) error {
	return c.call(ctx, func(api *gofish.APIClient) error {
		resp, err := api.Patch(uri, body)
		schemas.DeferredCleanupHTTPResponse(resp)
		return err
	})
}

// refusedSlot: the member does not take this request at all (no such
// action, method not allowed, not found), so another member may.
func refusedSlot(err error) bool {
	var rf *schemas.Error
	if !errors.As(err, &rf) {
		return false
	}
	switch rf.HTTPReturnedStatusCode {
	case http.StatusMethodNotAllowed, http.StatusNotFound, http.StatusNotImplemented:
		return true
	}
	// the message id may sit in the code or in @Message.ExtendedInfo
	body := err.Error()
	return strings.Contains(body, "MissingAction") || strings.Contains(body, "ActionNotSupported")
}
