package redfish_test

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests drive the emulator with gofish, the client the activities
// use, to prove the resource shapes are what a real client expects.

func connect(t *testing.T, url string, basic bool) *gofish.APIClient {
	t.Helper()
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: url, Username: redfishtest.Username, Password: redfishtest.Password, Insecure: true, BasicAuth: basic})
	require.NoError(t, err)
	t.Cleanup(c.Logout)
	return c
}

func system(t *testing.T, c *gofish.APIClient) *schemas.ComputerSystem {
	t.Helper()
	systems, err := c.Service.Systems()
	require.NoError(t, err)
	require.Len(t, systems, 1)
	return systems[0]
}

// waitTask follows a task monitor to its end; the deadline only guards
// against a hang.
func waitTask(t *testing.T, c *gofish.APIClient, info *schemas.TaskMonitorInfo) *schemas.Task {
	t.Helper()
	require.NotNil(t, info, "expected 202 with a task monitor")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	task, _, err := schemas.WaitForTaskMonitorObject[schemas.Task](ctx, c, time.Millisecond, info, nil)
	require.NoError(t, err)
	return task
}

func TestGofishPowerCycle(t *testing.T) {
	srv := redfishtest.Start(t, redfishtest.Helpful)
	b, url := srv.BMC, srv.URL
	c := connect(t, url, true)
	sys := system(t, c)
	assert.Equal(t, schemas.OnPowerState, sys.PowerState)
	assert.Equal(t, "SN-0101", sys.SerialNumber)
	types, err := sys.GetSupportedResetTypes()
	require.NoError(t, err)
	assert.Contains(t, types, schemas.ForceRestartResetType)

	info, err := sys.Reset(schemas.ForceOffResetType)
	require.NoError(t, err)
	assert.Equal(t, schemas.CompletedTaskState, waitTask(t, c, info).TaskState)
	assert.Equal(t, schemas.OffPowerState, system(t, c).PowerState)

	info, err = system(t, c).Reset(schemas.OnResetType)
	require.NoError(t, err)
	assert.Equal(t, schemas.CompletedTaskState, waitTask(t, c, info).TaskState)
	sys = system(t, c)
	assert.Equal(t, schemas.OnPowerState, sys.PowerState)
	assert.Equal(t, schemas.OSRunningBootProgressTypes, sys.BootProgress.LastState)
	assert.True(t, b.State().OSRunning)
}

func TestGofishReimage(t *testing.T) {
	srv := redfishtest.Start(t, redfishtest.Helpful)
	b, log, url := srv.BMC, srv.Log, srv.URL
	c := connect(t, url, false) // session auth
	sys := system(t, c)

	media, err := sys.VirtualMedia()
	require.NoError(t, err)
	require.Len(t, media, 1)
	cd := media[0]
	assert.Contains(t, cd.MediaTypes, schemas.CDVirtualMediaType)
	info, err := cd.InsertMedia(&schemas.VirtualMediaInsertMediaParameters{
		Image: "http://images.lab/rackroll-4.2.0.iso", Inserted: gofish.ToRef(true), WriteProtected: gofish.ToRef(true)})
	require.NoError(t, err)
	assert.Equal(t, schemas.CompletedTaskState, waitTask(t, c, info).TaskState)

	_, err = cd.InsertMedia(&schemas.VirtualMediaInsertMediaParameters{Image: "http://images.lab/rackroll-9.iso"})
	require.Error(t, err, "a full drive refuses a second image")
	var rfErr *schemas.Error
	require.ErrorAs(t, err, &rfErr)
	assert.Equal(t, 409, rfErr.HTTPReturnedStatusCode)

	require.NoError(t, sys.SetBoot(&schemas.Boot{
		BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled,
		BootSourceOverrideTarget:  schemas.CdBootSource,
	}))
	sys = system(t, c)
	assert.Equal(t, schemas.OnceBootSourceOverrideEnabled, sys.Boot.BootSourceOverrideEnabled)
	assert.Equal(t, schemas.CdBootSource, sys.Boot.BootSourceOverrideTarget)

	info, err = sys.Reset(schemas.ForceRestartResetType)
	require.NoError(t, err)
	assert.Equal(t, schemas.CompletedTaskState, waitTask(t, c, info).TaskState)

	sys = system(t, c)
	assert.Equal(t, schemas.DisabledBootSourceOverrideEnabled, sys.Boot.BootSourceOverrideEnabled)
	os, err := sys.OperatingSystem()
	require.NoError(t, err)
	require.NotNil(t, os)
	img, err := os.SoftwareImage()
	require.NoError(t, err)
	assert.Equal(t, "4.2.0", img.Version)
	assert.Equal(t, 1, b.State().ReimageCount)
	assert.Equal(t, 1, log.Count(events.ReimageDone, "rack1-c1"))

	media, err = sys.VirtualMedia()
	require.NoError(t, err)
	_, err = media[0].EjectMedia()
	require.NoError(t, err)
	managers, err := c.Service.Managers()
	require.NoError(t, err)
	require.Len(t, managers, 1)
	mm, err := managers[0].VirtualMedia()
	require.NoError(t, err)
	require.Len(t, mm, 1)
	assert.False(t, gofish.Deref(mm[0].Inserted), "the Manager's drive is the same drive")
}

func TestGofishStaleETag(t *testing.T) {
	srv := redfishtest.Start(t)
	b, url := srv.BMC, srv.URL
	c := connect(t, url, true)
	sys := system(t, c)
	// Someone else changes the System after we read it.
	other := system(t, c)
	require.NoError(t, other.SetBoot(&schemas.Boot{BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled, BootSourceOverrideTarget: schemas.PxeBootSource}))

	err := sys.SetBoot(&schemas.Boot{BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled, BootSourceOverrideTarget: schemas.CdBootSource})
	require.Error(t, err)
	assert.True(t, schemas.Is412PreconditionFailed(err))

	b.SetFault(faults.StaleETag, 1)
	err = system(t, c).SetBoot(&schemas.Boot{BootSourceOverrideTarget: schemas.CdBootSource})
	assert.True(t, schemas.Is412PreconditionFailed(err))
}

func TestGofishWrongPassword(t *testing.T) {
	url := redfishtest.Start(t).URL
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: url, Username: "root", Password: "nope", BasicAuth: true})
	require.NoError(t, err, "the service root needs no auth")
	_, err = c.Service.Systems()
	var collErr *schemas.CollectionError
	require.ErrorAs(t, err, &collErr)
	var rfErr *schemas.Error
	require.ErrorAs(t, collErr.Failures["/redfish/v1/Systems"], &rfErr)
	assert.Equal(t, 401, rfErr.HTTPReturnedStatusCode)

	_, err = gofish.Connect(gofish.ClientConfig{Endpoint: url, Username: "root", Password: "nope"})
	assert.Error(t, err, "session login refused")
}
