package bmc

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProbeProvesBasicAuthWithARead(t *testing.T) {
	b, ep := plainBMC(t, false) // no SessionService: nothing checks the password at dial
	b.pass = "the-right-one"
	items := map[string]sitecheck.Item{}
	for _, it := range Probe(context.Background(), ep, activitiesWith(newFake()).Resolver, 5*time.Second, nil) {
		items[it.Check] = it
	}
	it, ok := items["login"]
	require.True(t, ok, "%+v", items)
	assert.True(t, it.Blocker, "a wrong password is a blocker: %+v", it)
	assert.Contains(t, it.Detail, "HTTP 401")
	assert.NotContains(t, it.Detail, "{", "a clean description, not the BMC's JSON body")
	assert.Contains(t, it.Fix, "password")
	_, found := items["System found"]
	assert.False(t, found, "nothing is judged past a refused login")

	b.pass = testPassword
	items = map[string]sitecheck.Item{}
	for _, it := range Probe(context.Background(), ep, activitiesWith(newFake()).Resolver, 5*time.Second, nil) {
		items[it.Check] = it
	}
	assert.True(t, items["login"].OK)
	assert.Contains(t, items["login"].Detail, "basic auth")
}

func TestAMissingResetActionInfoIsLookedUpOnce(t *testing.T) {
	b, ep := plainBMC(t, true)
	sys := b.docs["/redfish/v1/Systems/1"]
	sys["Actions"] = doc{"#ComputerSystem.Reset": doc{"target": "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset",
		"@Redfish.ActionInfo": "/redfish/v1/Systems/1/ResetActionInfo"}} // and a 404 there
	creds, err := EnvFileResolver{LookupEnv: func(k string) (string, bool) { v, ok := testEnv[k]; return v, ok }}.Resolve(context.Background(), ep.Credentials)
	require.NoError(t, err)
	c, err := DialGofish(context.Background(), ep, creds, 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	for range 3 {
		s, err := c.System(context.Background())
		require.NoError(t, err)
		assert.Empty(t, s.ResetTypes)
	}
	assert.Equal(t, 1, b.count("GET /redfish/v1/Systems/1/ResetActionInfo"), "remembered for the client's life")
}
