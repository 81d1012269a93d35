package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/rackroll/rackroll/internal/codec"
	"github.com/spf13/cobra"
)

// codecServerCmd serves the payload codec over HTTP so the Temporal UI
// (Settings → Codec Server) and `temporal workflow show --codec-endpoint`
// can show encrypted payloads in clear. It decrypts for anyone who can reach
// it, hence the loopback default.
func (a *app) codecServerCmd() *cobra.Command {
	var listen, origin string
	cmd := &cobra.Command{
		Use:   "codec-server",
		Short: "Serve the payload codec for the Temporal UI and CLI (decrypts payloads)",
		Long: `codec-server decrypts and encrypts payloads for the Temporal UI and CLI with the
key of --codec-key-file (or RACKROLL_CODEC_KEY_FILE). Point the UI at it under
Settings → Codec Server (e.g. http://127.0.0.1:8081) and pass the UI's address
as --cors-origin. Anyone who can reach it can decrypt: keep it on loopback or
behind an authenticating proxy.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.codecHandler(origin)
			if err != nil {
				return err
			}
			l, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
			fmt.Fprintf(cmd.OutOrStdout(), "codec server on http://%s (POST /encode, /decode)\n", l.Addr())
			if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8081", "host:port to serve on")
	cmd.Flags().StringVar(&origin, "cors-origin", "", "browser origin allowed to call it: the Temporal UI's URL, e.g. http://127.0.0.1:8233")
	return cmd
}

// codecHandler builds the handler from the global --codec-key-file.
func (a *app) codecHandler(origin string) (http.Handler, error) {
	c, err := a.conn.Codec(nil)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("codec-server needs the key: --codec-key-file FILE or %s", codec.EnvKeyFile)
	}
	return codec.Handler(c, origin), nil
}
