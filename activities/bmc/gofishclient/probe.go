package gofishclient

import (
	"context"
	"net/http"
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
