package redfish_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/require"
)

// A slot-based AccountService (idrac9) as a BMC keyset meets it: every
// slot listed, slot 1 reserved and slot 2 the BMC's own; POST to the
// collection and DELETE of a slot answer 405; an account is made by a
// PATCH of an empty slot, logs in, is disabled, and is removed by emptying
// its name; a full table leaves no empty slot.
func TestGofishAccountSlots(t *testing.T) {
	srv := redfishtest.Start(t, redfishtest.Profile("idrac9"), func(c *redfish.Config) { c.AccountLimit = 4 })
	c := connect(t, srv.URL, false)
	as, err := c.Service.AccountService()
	require.NoError(t, err)
	slots, err := as.Accounts()
	require.NoError(t, err)
	var shown []string
	for _, s := range slots {
		shown = append(shown, s.ID+":"+s.UserName+":"+s.RoleID)
	}
	require.Equal(t, []string{"1::None", "2:" + redfishtest.Username + ":Administrator", "3::None", "4::None"}, shown)
	require.False(t, slots[2].Enabled)

	// POST is refused with 405 and an Allow header without POST.
	_, err = as.CreateAccount("alice", "alice-Secret-1", "Operator")
	require.ErrorContains(t, err, "405")
	resp := rawDo(t, srv.URL, http.MethodPost, "/redfish/v1/AccountService/Accounts", `{"UserName":"alice","Password":"alice-Secret-1","RoleId":"Operator"}`)
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	require.Equal(t, "GET", resp.Header.Get("Allow"))

	// Slot 1 is reserved; slot 3 takes the account in one PATCH.
	const alicePass = "alice-Secret-1"
	body := `{"UserName":"alice","Password":"` + alicePass + `","RoleId":"Operator","Enabled":true}`
	resp = rawDo(t, srv.URL, http.MethodPatch, "/redfish/v1/AccountService/Accounts/1", body)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	resp = rawDo(t, srv.URL, http.MethodPatch, "/redfish/v1/AccountService/Accounts/3", body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got, err := schemas.GetManagerAccount(c, "/redfish/v1/AccountService/Accounts/3")
	require.NoError(t, err)
	require.Equal(t, []any{"alice", "Operator", true}, []any{got.UserName, got.RoleID, got.Enabled})
	require.NoError(t, login(srv.URL, "alice", alicePass))
	raw := getRaw(t, c, "/redfish/v1/AccountService/Accounts/3")
	require.NotContains(t, raw, alicePass)

	// The name is unique without case across slots.
	resp = rawDo(t, srv.URL, http.MethodPatch, "/redfish/v1/AccountService/Accounts/4", `{"UserName":"ALICE","Password":"bob-Secret-12","RoleId":"ReadOnly","Enabled":true}`)
	require.Equal(t, http.StatusConflict, resp.StatusCode)

	// Disabled: kept with its role, no longer logs in.
	got.Enabled = false
	require.NoError(t, got.Update())
	require.Error(t, login(srv.URL, "alice", alicePass))

	// A slot is not deleted; emptying its name frees it (and forgets the
	// password: enabling the slot again does not bring alice back).
	require.ErrorContains(t, del(c, "/redfish/v1/AccountService/Accounts/3"), "405")
	resp = rawDo(t, srv.URL, http.MethodPatch, "/redfish/v1/AccountService/Accounts/3", `{"UserName":"","Enabled":false}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.False(t, srv.BMC.AccountPasswordIs("alice", alicePass))

	// Full: slots 3 and 4 taken, none empty left (the activity's cap).
	for _, id := range []string{"3", "4"} {
		resp = rawDo(t, srv.URL, http.MethodPatch, "/redfish/v1/AccountService/Accounts/"+id, `{"UserName":"u`+id+`","Password":"pw-Secret-`+id+`","RoleId":"ReadOnly","Enabled":true}`)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	var empty int
	for _, a := range srv.BMC.Accounts() {
		if a.UserName == "" {
			empty++
		}
	}
	require.Equal(t, 1, empty, "only the reserved slot 1 is empty")
}

// Every profile has one of the two shapes, as its vendor does: POST
// creates an account where the vendor takes one (iLO, Supermicro, XCC on
// Whitley, iDRAC10, DMTF's mockup), 405 where the vendor has slots.
func TestAccountShapePerProfile(t *testing.T) {
	// The iDRAC9 family has slots; nothing else does.
	slotted := map[string]bool{}
	for _, name := range redfish.ProfileNames() {
		p, _ := redfish.LookupProfile(name)
		slotted[name] = strings.HasPrefix(name, "idrac9")
		require.Equal(t, slotted[name], p.AccountSlots > 0, name)
	}
	for _, name := range []string{"ilo5", "supermicro", "xcc", "idrac10", "dmtf", "idrac9"} {
		t.Run(name, func(t *testing.T) {
			srv := redfishtest.Start(t, redfishtest.Profile(name))
			as, err := connect(t, srv.URL, false).Service.AccountService()
			require.NoError(t, err)
			_, err = as.CreateAccount("alice", "alice-Secret-1", "Operator")
			if slotted[name] {
				require.ErrorContains(t, err, "405")
				return
			}
			require.NoError(t, err)
			require.NoError(t, login(srv.URL, "alice", "alice-Secret-1"))
		})
	}
}

type rawResp struct {
	StatusCode int
	Header     http.Header
	Body       map[string]any
}

// rawDo sends body with the lab's own credentials (basic auth).
func rawDo(t *testing.T, base, method, path, body string) rawResp {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(redfishtest.Username, redfishtest.Password)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := rawResp{StatusCode: resp.StatusCode, Header: resp.Header}
	_ = json.Unmarshal(b, &out.Body)
	return out
}
