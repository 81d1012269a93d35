package bmc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// miniBMC serves hand-written, vendor-shaped Redfish documents over
// httptest so the gofish client (sessions, basic auth, actions, PATCH) is
// tested without the lab. It keeps only what the tests look at.
type miniBMC struct {
	mu       sync.Mutex
	docs     map[string]doc // path → resource
	sessions bool           // the service root links a SessionService
	pass     string
	tokens   map[string]string // live token → session path
	next     int
	created  int
	deleted  int
	basic    int            // requests authenticated with basic auth
	reject   map[string]int // path → status to answer (after auth)
	expire   int            // tokens to drop before the next authenticated request
	requests []string       // "METHOD path", in order (service root and sessions excluded)
	bodies   map[string][]doc
	onPost   func(b *miniBMC, path string, body doc) (status int, location string)
}

type doc = map[string]any

const sessionsPath = "/redfish/v1/SessionService/Sessions"

func newMiniBMC(sessions bool) *miniBMC {
	return &miniBMC{docs: map[string]doc{}, sessions: sessions, pass: testPassword,
		tokens: map[string]string{}, reject: map[string]int{}, bodies: map[string][]doc{}}
}

func (b *miniBMC) start(t *testing.T, tls bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(b)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

func redfishError(w http.ResponseWriter, status int, id, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(doc{"error": doc{"code": "Base.1.8." + id, "message": msg,
		"@Message.ExtendedInfo": []doc{{"MessageId": "Base.1.8." + id, "Message": msg}}}})
}

func (b *miniBMC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	path := strings.TrimSuffix(r.URL.Path, "/")
	var body doc
	_ = json.NewDecoder(r.Body).Decode(&body)
	switch {
	case path == "/redfish/v1" && r.Method == http.MethodGet:
		b.write(w, b.root())
		return
	case path == sessionsPath && r.Method == http.MethodPost && b.sessions:
		if body["UserName"] != "root" || body["Password"] != b.pass {
			redfishError(w, http.StatusUnauthorized, "NoValidSession", "bad credentials")
			return
		}
		b.next++
		b.created++
		tok, loc := fmt.Sprintf("token-%d", b.next), fmt.Sprintf("%s/%d", sessionsPath, b.next)
		b.tokens[tok] = loc
		w.Header().Set("X-Auth-Token", tok)
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusCreated)
		return
	}
	if !b.authorized(r) {
		redfishError(w, http.StatusUnauthorized, "NoValidSession", "no valid session")
		return
	}
	if strings.HasPrefix(path, sessionsPath+"/") && r.Method == http.MethodDelete {
		for tok, loc := range b.tokens {
			if loc == path {
				delete(b.tokens, tok)
				b.deleted++
			}
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	b.requests = append(b.requests, r.Method+" "+path)
	if st := b.reject[path]; st != 0 {
		redfishError(w, st, "InternalError", "injected")
		return
	}
	switch r.Method {
	case http.MethodGet:
		if d, ok := b.docs[path]; ok {
			b.write(w, d)
			return
		}
		redfishError(w, http.StatusNotFound, "ResourceMissingAtURI", "no "+path)
	case http.MethodPatch:
		b.bodies[path] = append(b.bodies[path], body)
		maps.Copy(b.docs[path], body)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPost:
		b.bodies[path] = append(b.bodies[path], body)
		status, loc := http.StatusNoContent, ""
		if b.onPost != nil {
			status, loc = b.onPost(b, path, body)
		}
		if status >= 400 {
			redfishError(w, status, "ActionParameterNotSupported", "refused")
			return
		}
		if loc != "" {
			w.Header().Set("Location", loc)
		}
		w.WriteHeader(status)
	default:
		redfishError(w, http.StatusMethodNotAllowed, "OperationNotAllowed", r.Method)
	}
}

func (b *miniBMC) authorized(r *http.Request) bool {
	for ; b.expire > 0 && len(b.tokens) > 0; b.expire-- {
		for tok := range b.tokens {
			delete(b.tokens, tok) // the BMC dropped it (timeout, BMC reboot)
			break
		}
	}
	if _, ok := b.tokens[r.Header.Get("X-Auth-Token")]; ok {
		return true
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("root:"+b.pass))
	if r.Header.Get("Authorization") == want {
		b.basic++
		return true
	}
	return false
}

func (b *miniBMC) root() doc {
	d := doc{"@odata.id": "/redfish/v1", "@odata.type": "#ServiceRoot.v1_5_0.ServiceRoot", "Id": "RootService",
		"RedfishVersion": "1.9.0", "Systems": ref("/redfish/v1/Systems"), "Managers": ref("/redfish/v1/Managers")}
	if b.sessions {
		d["SessionService"] = ref("/redfish/v1/SessionService")
		d["Links"] = doc{"Sessions": ref(sessionsPath)}
	}
	return d
}

func (b *miniBMC) write(w http.ResponseWriter, d doc) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(d)
}

func ref(p string) doc { return doc{"@odata.id": p} }

// put adds a resource; a collection is made from its members' ids.
func (b *miniBMC) put(path string, d doc) {
	d["@odata.id"] = path
	b.docs[path] = d
}

func (b *miniBMC) collection(path string, members ...string) {
	var ms []doc
	for _, m := range members {
		ms = append(ms, ref(m))
	}
	b.put(path, doc{"Members": ms, "Members@odata.count": len(ms)})
}

// system adds one ComputerSystem (and its collection) managed by
// /redfish/v1/Managers/1.
func (b *miniBMC) system(id, power string, resetTypes, bootTargets []string) string {
	p := "/redfish/v1/Systems/" + id
	b.collection("/redfish/v1/Systems", p)
	boot := doc{"BootSourceOverrideEnabled": "Disabled", "BootSourceOverrideTarget": "None"}
	if bootTargets != nil {
		boot["BootSourceOverrideTarget@Redfish.AllowableValues"] = bootTargets
	}
	b.put(p, doc{"@odata.type": "#ComputerSystem.v1_10_0.ComputerSystem", "Id": id, "PowerState": power,
		"Status": doc{"State": "Enabled", "Health": "OK"}, "Boot": boot,
		"Links":   doc{"ManagedBy": []doc{ref("/redfish/v1/Managers/1")}},
		"Actions": doc{"#ComputerSystem.Reset": doc{"target": p + "/Actions/ComputerSystem.Reset", "ResetType@Redfish.AllowableValues": resetTypes}}})
	b.collection("/redfish/v1/Managers", "/redfish/v1/Managers/1")
	b.put("/redfish/v1/Managers/1", doc{"@odata.type": "#Manager.v1_5_0.Manager", "Id": "1"})
	return p
}

// media adds virtual-media members under parent (a System or Manager).
func (b *miniBMC) media(parent string, members ...doc) {
	b.docs[parent]["VirtualMedia"] = ref(parent + "/VirtualMedia")
	var uris []string
	for _, m := range members {
		uri := parent + "/VirtualMedia/" + m["Id"].(string)
		uris = append(uris, uri)
		b.put(uri, m)
	}
	b.collection(parent+"/VirtualMedia", uris...)
}

// withActions gives a member its InsertMedia/EjectMedia actions.
func withActions(parent string, m doc) doc {
	uri := parent + "/VirtualMedia/" + m["Id"].(string)
	m["Actions"] = doc{"#VirtualMedia.InsertMedia": doc{"target": uri + "/Actions/VirtualMedia.InsertMedia"},
		"#VirtualMedia.EjectMedia": doc{"target": uri + "/Actions/VirtualMedia.EjectMedia"}}
	return m
}

func (b *miniBMC) count(req string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, r := range b.requests {
		if r == req {
			n++
		}
	}
	return n
}

// gofishActivities dial the real gofish client, with fast polls.
func gofishActivities() *Activities {
	a := activitiesWith(newFake())
	a.Dial = nil
	a.RequestTimeout = 5 * time.Second
	return a
}
