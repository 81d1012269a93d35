package redfish

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
)

// handlers maps HTTP methods to the code serving them for one resource.
type handlers map[string]func()

func dispatch(w http.ResponseWriter, r *http.Request, h handlers) {
	if f, ok := h[r.Method]; ok {
		f()
		return
	}
	allow := make([]string, 0, len(h))
	for m := range h {
		allow = append(allow, m)
	}
	sort.Strings(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, &apiError{http.StatusMethodNotAllowed, "OperationNotAllowed", r.Method + " is not allowed on " + r.URL.Path + "."})
}

// get serves a read-only resource rendered under the lock.
func (b *BMC) get(w http.ResponseWriter, r *http.Request, render func() doc) {
	dispatch(w, r, handlers{http.MethodGet: func() {
		b.mu.Lock()
		d := render()
		b.mu.Unlock()
		writeJSON(w, http.StatusOK, d)
	}})
}

func (b *BMC) route(w http.ResponseWriter, r *http.Request, p string) {
	ps := b.paths
	switch p {
	case "/redfish":
		b.get(w, r, func() doc { return doc{"v1": rootPath + "/"} })
	case rootPath:
		b.get(w, r, b.serviceRoot)
	case rootPath + "/odata":
		b.get(w, r, odataDocument)
	case rootPath + "/$metadata":
		dispatch(w, r, handlers{http.MethodGet: func() {
			w.Header().Set("Content-Type", "application/xml")
			w.Header().Set("OData-Version", "4.0")
			io.WriteString(w, metadataXML)
		}})
	case systemsPath:
		b.get(w, r, func() doc {
			return collection(systemsPath, "ComputerSystemCollection", "Computer System Collection", ps.system)
		})
	case ps.system:
		dispatch(w, r, handlers{
			http.MethodGet:   func() { b.getSystem(w, r) },
			http.MethodPatch: func() { b.patchSystem(w, r) },
		})
	case ps.reset:
		dispatch(w, r, handlers{http.MethodPost: func() { b.postReset(w, r) }})
	case ps.nics:
		b.get(w, r, b.nics)
	case managersPath:
		b.get(w, r, func() doc { return collection(managersPath, "ManagerCollection", "Manager Collection", ps.manager) })
	case ps.manager:
		b.get(w, r, b.manager)
	case updatePath:
		b.get(w, r, b.updateService)
	case firmwarePath:
		if b.prof.NoFirmwareInventory {
			notFound(w, r)
			return
		}
		b.get(w, r, b.firmwareInventoryLocked)
	case simpleUpdatePath:
		if b.prof.NoSimpleUpdate {
			notFound(w, r)
			return
		}
		dispatch(w, r, handlers{http.MethodPost: func() { b.postSimpleUpdate(w, r) }})
	case pushPath:
		if !b.prof.MultipartPush {
			notFound(w, r)
			return
		}
		dispatch(w, r, handlers{http.MethodPost: func() { b.postPush(w, r) }})
	case inventoryPath:
		b.get(w, r, b.inventory)
	case biosImagePath, bmcImagePath:
		b.get(w, r, func() doc { return b.firmwareImage(p) })
	case sessionServicePath:
		b.get(w, r, b.sessionService)
	case sessionsPath:
		dispatch(w, r, handlers{
			http.MethodGet: func() {
				b.mu.Lock()
				d := b.sessionsLocked()
				b.mu.Unlock()
				writeJSON(w, http.StatusOK, d)
			},
			http.MethodPost: func() { b.login(w, r) },
		})
	case taskServicePath:
		b.get(w, r, func() doc {
			return doc{"@odata.id": taskServicePath, "@odata.type": "#TaskService.v1_2_0.TaskService", "Id": "TaskService",
				"Name": "Task Service", "ServiceEnabled": true, "Tasks": link(tasksPath)}
		})
	case tasksPath:
		b.get(w, r, b.tasksLocked)
	default:
		b.routeMore(w, r, p)
	}
}

// routeMore serves the resources whose presence depends on the profile
// and those addressed by id.
func (b *BMC) routeMore(w http.ResponseWriter, r *http.Request, p string) {
	ps := b.paths
	if slot, rest, ok := b.slotAt(p); ok {
		switch {
		case rest == "":
			dispatch(w, r, handlers{
				http.MethodGet:   func() { b.getSlot(w, r, slot) },
				http.MethodPatch: func() { b.patchSlot(w, r, slot) },
			})
		case slot.NoInsertAction:
			writeError(w, &apiError{http.StatusNotFound, "ActionNotSupported",
				"The action " + strings.TrimPrefix(rest, "/Actions/") + " is not supported by the resource " + slot.uri + "; PATCH Image and Inserted instead."})
		case rest == insertAction:
			dispatch(w, r, handlers{http.MethodPost: func() { b.postInsert(w, r, slot) }})
		default:
			dispatch(w, r, handlers{http.MethodPost: func() { b.postEject(w, r, slot) }})
		}
		return
	}
	switch {
	case p != "" && (p == ps.sysMedia || p == ps.mgrMedia):
		b.get(w, r, func() doc { return b.mediaCollection(p) })
	case p == ps.nic && b.cfg.BootMAC != "":
		b.get(w, r, b.nic)
	case p == ps.os && b.prof.Helpful:
		b.get(w, r, b.operatingSystemLocked)
	case p == osImagePath && b.prof.Helpful:
		b.get(w, r, b.osImageLocked)
	case strings.HasPrefix(p, firmwarePath+"/") && !b.prof.NoFirmwareInventory:
		id, _ := isFirmwareMember(p)
		b.firmwareMember(w, r, id)
	case p == accountServicePath || strings.HasPrefix(p, accountServicePath+"/"):
		b.routeAccounts(w, r, p)
	case strings.HasPrefix(p, sessionsPath+"/"):
		b.session(w, r, strings.TrimPrefix(p, sessionsPath+"/"))
	case strings.HasPrefix(p, tasksPath+"/"):
		dispatch(w, r, handlers{http.MethodGet: func() { b.getTask(w, strings.TrimPrefix(p, tasksPath+"/")) }})
	case b.servesUpdateShape(p):
		b.routeUpdateShape(w, r, p)
	default:
		notFound(w, r)
	}
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, &apiError{http.StatusNotFound, "ResourceNotFound", "The resource at " + r.URL.Path + " was not found."})
}

func odataDocument() doc {
	return doc{
		"@odata.context": rootPath + "/$metadata",
		"value": []doc{
			{"name": "Service", "kind": "Singleton", "url": rootPath + "/"},
			{"name": "Systems", "kind": "Singleton", "url": systemsPath},
			{"name": "Managers", "kind": "Singleton", "url": managersPath},
			{"name": "SessionService", "kind": "Singleton", "url": sessionServicePath},
			{"name": "TaskService", "kind": "Singleton", "url": taskServicePath},
			{"name": "UpdateService", "kind": "Singleton", "url": updatePath},
		},
	}
}

// decodeBody reads a JSON object body; a malformed one is a 400.
func decodeBody(r *http.Request, v any) *apiError {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return &apiError{http.StatusBadRequest, "MalformedJSON", "The request body could not be read."}
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &apiError{http.StatusBadRequest, "MalformedJSON", "The request body submitted was malformed JSON and could not be parsed by the receiving service."}
	}
	return nil
}

// metadataXML is a minimal CSDL service document pointing at the DMTF
// schemas, enough for clients that read it to find the entity container.
const metadataXML = `<?xml version="1.0" encoding="UTF-8"?>
<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
  <edmx:Reference Uri="http://redfish.dmtf.org/schemas/v1/ServiceRoot_v1.xml">
    <edmx:Include Namespace="ServiceRoot"/>
    <edmx:Include Namespace="ServiceRoot.v1_11_0"/>
  </edmx:Reference>
  <edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Service">
      <EntityContainer Name="Service" Extends="ServiceRoot.v1_11_0.ServiceContainer"/>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
`
