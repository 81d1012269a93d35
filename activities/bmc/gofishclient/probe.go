package gofishclient

import (
	"context"
	"net/http"

	"github.com/stmcginnis/gofish"
)

// What `starter site check` reads beyond the activities' slice
// (bmcclient.Prober).

func (c *client) SessionService() string { return c.sessions }

// ServesWithoutAuth asks for the System with no credentials; gofish
// returns an error for a 401.
func (c *client) ServesWithoutAuth(ctx context.Context) bool {
	if c.anon == nil || c.sysURI == "" {
		return false
	}
	resp, err := c.anon.WithContext(ctx).Get(c.sysURI)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (c *client) Versions(ctx context.Context) (bios, bmc string) {
	if sys, err := c.system(ctx); err == nil {
		bios = sys.BiosVersion
	}
	_ = c.call(ctx, func(api *gofish.APIClient) error {
		ms, err := api.Service.Managers()
		if err == nil && len(ms) > 0 {
			bmc = ms[0].FirmwareVersion
		}
		return err
	})
	return bios, bmc
}
