package bmc

import (
	"context"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReimageUsesTheVendorsVirtualCDNotTheFirstListed(t *testing.T) {
	f := newFake()
	// iDRAC lists VirtualMedia/2 before /1; iDRAC10 boots only from 1.
	f.media = []bmcclient.MediaInfo{cdMember("2", "/redfish/v1/Systems/1/VirtualMedia/2"), cdMember("1", cdURI)}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Contains(t, f.mutations(), "InsertMedia 1 "+image)
	assert.False(t, f.media[0].Inserted)
}

func TestInsertRetriesWithFewerParameters(t *testing.T) {
	f := newFake()
	var seen []bmcclient.InsertParams
	f.onInsert = func(_ *fakeClient, _ bmcclient.MediaInfo, p bmcclient.InsertParams) error {
		seen = append(seen, p)
		if p.TransferProtocolType != "" || p.WriteProtected != nil { // like Supermicro X11
			return httpErr(400)
		}
		return nil
	}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	require.Len(t, seen, 3)
	assert.Equal(t, "HTTP", seen[0].TransferProtocolType)
	assert.Empty(t, seen[1].TransferProtocolType)
	assert.NotNil(t, seen[1].WriteProtected)
	assert.Equal(t, bmcclient.InsertParams{Image: image}, seen[2])
	assert.Equal(t, image, f.media[0].Image)
}

func TestInsertSkipsASlotThatRefuses(t *testing.T) {
	f := newFake()
	f.media = append(f.media, cdMember("CD", "/redfish/v1/Managers/1/VirtualMedia/CD"))
	f.media[1].Location = "Manager"
	f.onInsert = func(_ *fakeClient, m bmcclient.MediaInfo, _ bmcclient.InsertParams) error {
		if m.ID == "1" {
			return httpErr(405)
		}
		return nil
	}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, []string{"InsertMedia 1 " + image, "InsertMedia CD " + image, "SetBootOverride Once Cd", "Reset ForceRestart"}, f.mutations())
	assert.Equal(t, image, f.media[1].Image)
}

func TestInsertFailsWhenEverySlotRefuses(t *testing.T) {
	f := newFake()
	f.onInsert = func(*fakeClient, bmcclient.MediaInfo, bmcclient.InsertParams) error { return httpErr(400) }
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeRejected, false)
	assert.Contains(t, ae.Error(), "every virtual CD refused the image")
	assert.Contains(t, ae.Error(), cdURI)
	assert.Zero(t, f.count("Reset"))
}

func TestReimageWithoutAVirtualCD(t *testing.T) {
	f := newFake()
	f.media = []bmcclient.MediaInfo{{URI: "/redfish/v1/Managers/1/VirtualMedia/RDOC1", ID: "RDOC1", Location: "Manager", MediaTypes: []string{"CD", "DVD"}}}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeRejected, false)
	assert.Contains(t, ae.Error(), "no virtual-media member takes a CD/DVD outside the upload slots")
	assert.Empty(t, f.mutations())
}

func TestStaleInsertedIsEjectedFirst(t *testing.T) {
	f := newFake()
	f.media[0].Inserted = true // iDRAC: Inserted with no image
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, []string{"EjectMedia 1", "InsertMedia 1 " + image}, f.mutations()[:2])
}

func TestARefusedEjectBeforeInsertIsNotFatal(t *testing.T) {
	f := newFake()
	f.media[0].Inserted = true
	f.errs["EjectMedia"] = []error{httpErr(400)} // "no media to eject"
	f.onInsert = func(f *fakeClient, m bmcclient.MediaInfo, _ bmcclient.InsertParams) error {
		f.member(m.URI).Inserted = false // the flag was stale: the BMC takes the image
		return nil
	}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, image, f.media[0].Image)
	assert.Equal(t, 1, f.count("Reset"))
}

func TestEjectMedia(t *testing.T) {
	in := EjectInput{Endpoint: testEndpoint, ImageURL: image}
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true
	a := activitiesWith(f)
	require.NoError(t, a.EjectMedia(context.Background(), in))
	assert.Equal(t, []string{"EjectMedia 1"}, f.mutations())
	assert.False(t, f.media[0].Inserted)

	require.NoError(t, a.EjectMedia(context.Background(), in))
	assert.Len(t, f.mutations(), 1, "idempotent: an empty drive is left alone")

	f = newFake()
	f.media[0].Image, f.media[0].Inserted = "http://someone/else.iso", true
	require.NoError(t, activitiesWith(f).EjectMedia(context.Background(), in))
	assert.Empty(t, f.mutations(), "someone else's media is left alone")
	assert.Equal(t, 1, f.closed)
}

func TestEjectMediaRejectsABadImageURL(t *testing.T) {
	f := newFake()
	err := activitiesWith(f).EjectMedia(context.Background(), EjectInput{Endpoint: testEndpoint, ImageURL: "rackroll.iso"})
	appError(t, err, ErrTypeConfig, false)
	assert.Empty(t, f.calls)
}
