package gofishclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// Firmware reads the System (manufacturer, model), the FirmwareInventory
// where the BMC has one, and the versions the standard resources show —
// the System's BiosVersion, the Manager's FirmwareVersion, each network
// adapter controller's FirmwarePackageVersion, each storage controller's
// FirmwareVersion — which is all a BMC without an inventory shows
// (sushy-tools links a FirmwareInventory it answers 404 for; Ironic's
// redfish firmware interface reads these properties). No inventory is not
// an error: NoInventory and InventoryWhy say so.
func (c *client) Firmware(ctx context.Context) (firmware.Server, error) {
	sys, err := c.system(ctx)
	if err != nil {
		return firmware.Server{}, err
	}
	out := firmware.Server{Manufacturer: sys.Manufacturer, Model: sys.Model}
	if out.Items, out.InventoryWhy, err = c.firmwareInventory(ctx); err != nil {
		return out, err
	}
	out.NoInventory = out.InventoryWhy != ""
	if sys.BiosVersion != "" {
		out.Properties = append(out.Properties, firmware.Property{Kind: firmware.KindBIOS, Source: "System.BiosVersion",
			ID: sys.ID, Name: sys.Name, Version: sys.BiosVersion})
	}
	links := linksOf(sys.RawData)
	for _, r := range []struct {
		kind string
		read func(*gofish.APIClient, systemLinks) ([]firmware.Property, error)
	}{{firmware.KindBMC, managerVersions}, {firmware.KindNIC, adapterVersions}, {firmware.KindStorage, storageVersions}} {
		var ps []firmware.Property
		err := c.call(ctx, func(api *gofish.APIClient) (err error) {
			ps, err = r.read(api, links)
			return err
		})
		switch {
		case err == nil:
			out.Properties = append(out.Properties, ps...)
		case out.NoInventory && transient(err):
			// The properties are all there is to judge by: a retry may read them.
			return out, err
		default:
			if out.PropertyErrors == nil {
				out.PropertyErrors = map[string]string{}
			}
			out.PropertyErrors[r.kind] = short(err)
		}
	}
	return out, nil
}

// firmwareInventory reads UpdateService/FirmwareInventory; why says why
// there is none: no UpdateService, none linked, a 404, no member.
func (c *client) firmwareInventory(ctx context.Context) (items []firmware.Item, why string, err error) {
	err = c.call(ctx, func(api *gofish.APIClient) error {
		items, why = nil, ""
		us, err := api.Service.UpdateService()
		switch {
		case err != nil && missing(err):
			why = "UpdateService: HTTP 404"
			return nil
		case err != nil:
			return err
		case us == nil:
			why = "the BMC links no UpdateService"
			return nil
		}
		members, err := us.FirmwareInventory()
		switch {
		case err != nil && missing(err):
			why = "UpdateService/FirmwareInventory: HTTP 404"
			return nil
		case err != nil:
			return err
		case len(members) == 0 && !links(us.RawData, "FirmwareInventory"):
			why = "the UpdateService links no FirmwareInventory"
		case len(members) == 0:
			why = "the FirmwareInventory lists no member"
		}
		for _, it := range members {
			items = append(items, firmware.Item{ID: it.ID, Name: it.Name, Version: it.Version,
				Updateable: it.Updateable, RelatedItem: relatedItems(it.RawData)})
		}
		return nil
	})
	return items, why, err
}

// links reports whether a resource's raw JSON links property.
func links(raw []byte, property string) bool {
	var d map[string]struct {
		ID string `json:"@odata.id"`
	}
	_ = json.Unmarshal(raw, &d) // other properties are not links: their errors do not matter
	return d[property].ID != ""
}

// systemLinks are the System's links the properties are found by.
type systemLinks struct {
	managedBy, chassis []string
	storage            string
}

func linksOf(raw []byte) systemLinks {
	type ref struct {
		ID string `json:"@odata.id"`
	}
	var d struct {
		Links struct {
			ManagedBy, Chassis []ref
		}
		Storage ref
	}
	_ = json.Unmarshal(raw, &d) // a System gofish read is JSON; missing links stay empty
	out := systemLinks{storage: d.Storage.ID}
	for _, r := range d.Links.ManagedBy {
		out.managedBy = append(out.managedBy, r.ID)
	}
	for _, r := range d.Links.Chassis {
		out.chassis = append(out.chassis, r.ID)
	}
	return out
}

// managerVersions is the FirmwareVersion of the Manager the System names,
// else of the first the BMC lists.
func managerVersions(api *gofish.APIClient, l systemLinks) ([]firmware.Property, error) {
	var ms []*schemas.Manager
	var err error
	if len(l.managedBy) > 0 {
		ms, err = schemas.GetObjects[schemas.Manager](api, l.managedBy[:1])
	} else {
		ms, err = api.Service.Managers()
	}
	if err != nil || len(ms) == 0 || ms[0].FirmwareVersion == "" {
		return nil, err
	}
	m := ms[0]
	return []firmware.Property{{Kind: firmware.KindBMC, Source: "Manager.FirmwareVersion", ID: m.ID, Name: m.Name, Version: m.FirmwareVersion}}, nil
}

// adapterVersions is each controller's FirmwarePackageVersion of every
// network adapter of the System's chassis (every chassis when it links
// none); a chassis without NetworkAdapters has none.
func adapterVersions(api *gofish.APIClient, l systemLinks) ([]firmware.Property, error) {
	var chassis []*schemas.Chassis
	var err error
	if len(l.chassis) > 0 {
		chassis, err = schemas.GetObjects[schemas.Chassis](api, l.chassis)
	} else {
		chassis, err = api.Service.Chassis()
	}
	if err != nil {
		return nil, notFoundIsNone(err)
	}
	var out []firmware.Property
	for _, ch := range chassis {
		adapters, err := ch.NetworkAdapters()
		if err != nil {
			return out, notFoundIsNone(err)
		}
		for _, a := range adapters {
			for i, ctl := range a.Controllers {
				if ctl.FirmwarePackageVersion != "" {
					out = append(out, firmware.Property{Kind: firmware.KindNIC, ID: a.ID, Name: a.Name, Version: ctl.FirmwarePackageVersion,
						Source: fmt.Sprintf("NetworkAdapters/%s.Controllers[%d].FirmwarePackageVersion", a.ID, i)})
				}
			}
		}
	}
	return out, nil
}

// storageVersions is each storage controller's FirmwareVersion: the
// controllers a Storage lists inline (StorageControllers, deprecated in
// Storage v1.13) or, where it lists none, its Controllers collection.
func storageVersions(api *gofish.APIClient, l systemLinks) ([]firmware.Property, error) {
	if l.storage == "" {
		return nil, nil
	}
	all, err := schemas.GetCollectionObjects[schemas.Storage](api, l.storage)
	if err != nil {
		return nil, notFoundIsNone(err)
	}
	var out []firmware.Property
	for _, st := range all {
		inline := inlineControllers(st.RawData)
		for i, ctl := range inline {
			if ctl.FirmwareVersion != "" {
				out = append(out, firmware.Property{Kind: firmware.KindStorage, ID: ctl.MemberID, Name: ctl.Name, Version: ctl.FirmwareVersion,
					Source: fmt.Sprintf("Storage/%s.StorageControllers[%d].FirmwareVersion", st.ID, i)})
			}
		}
		if len(inline) > 0 {
			continue
		}
		ctls, err := st.Controllers()
		if err != nil {
			return out, notFoundIsNone(err)
		}
		for _, ctl := range ctls {
			if ctl.FirmwareVersion != "" {
				out = append(out, firmware.Property{Kind: firmware.KindStorage, ID: ctl.ID, Name: ctl.Name, Version: ctl.FirmwareVersion,
					Source: fmt.Sprintf("Storage/%s/Controllers/%s.FirmwareVersion", st.ID, ctl.ID)})
			}
		}
	}
	return out, nil
}

// inlineController is a StorageControllers array member (gofish decodes
// it as a StorageController, which keeps no MemberId).
type inlineController struct {
	MemberID        string `json:"MemberId"`
	Name            string
	FirmwareVersion string
}

func inlineControllers(raw []byte) []inlineController {
	var d struct{ StorageControllers []inlineController }
	_ = json.Unmarshal(raw, &d) // absent: none inline
	return d.StorageControllers
}

// notFoundIsNone: a resource the BMC links but does not serve (404) shows
// no version; anything else is an error.
func notFoundIsNone(err error) error {
	if missing(err) {
		return nil
	}
	return err
}

// missing: the BMC answered 404 for what was read. gofish reports a
// collection it could not read as a collection error with that one
// failure.
func missing(err error) bool {
	return statusOf(err) == http.StatusNotFound
}

// statusOf is the HTTP status the BMC answered, also for a collection
// whose only failure it is; 0 when it answered none.
func statusOf(err error) int {
	err = redfishError(err)
	var pe *bmcclient.PartialError
	if errors.As(err, &pe) && len(pe.Failures) == 1 {
		for _, e := range pe.Failures {
			return bmcclient.StatusOf(e)
		}
	}
	return bmcclient.StatusOf(err)
}

// transient: an error a retry may not meet (the BMC's 5xx, the network),
// as opposed to an answer that will not change (4xx).
func transient(err error) bool {
	s := statusOf(err)
	return s == 0 || s >= 500
}

// short is err as a report line: the status and the BMC's message where
// it answered one, never its whole body.
func short(err error) string {
	err = redfishError(err)
	var pe *bmcclient.PartialError
	if errors.As(err, &pe) {
		for link, e := range pe.Failures { // one is enough to say why
			return link + ": " + short(e)
		}
	}
	var se *bmcclient.StatusError
	if errors.As(err, &se) && se.Status != 0 {
		if se.Message != "" {
			return fmt.Sprintf("HTTP %d: %s", se.Status, se.Message)
		}
		return fmt.Sprintf("HTTP %d", se.Status)
	}
	return err.Error()
}
