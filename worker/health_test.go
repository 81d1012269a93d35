package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"
)

type healthOf struct {
	client.Client // only CheckHealth is called
	err           error
}

func (h healthOf) CheckHealth(context.Context, *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	return &client.CheckHealthResponse{}, h.err
}

// The probes deploy/ points at: live whatever Temporal does, ready only
// while its frontend answers.
func TestHealthEndpoints(t *testing.T) {
	for _, tc := range []struct {
		err   error
		ready int
	}{{nil, http.StatusOK}, {errors.New("connection refused"), http.StatusServiceUnavailable}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		stop, err := serveHealth(addr, healthOf{err: tc.err}, zap.NewNop())
		require.NoError(t, err)
		get := func(path string) (int, string) {
			resp, err := http.Get("http://" + addr + path)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		code, _ := get("/healthz")
		require.Equal(t, http.StatusOK, code)
		code, body := get("/readyz")
		require.Equal(t, tc.ready, code, body)
		if tc.err != nil {
			require.Contains(t, body, "Temporal frontend: connection refused")
		}
		stop()
	}
	stop, err := serveHealth("", nil, zap.NewNop())
	require.NoError(t, err)
	stop()
}
