// Command devserver runs the Temporal server the tests and the demo run
// (internal/devserver: one process on SQLite, the Web UI beside it) until
// interrupted: `make dev-server`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/toolbin"
)

func main() {
	port := flag.Int("port", 7233, "frontend port on 127.0.0.1")
	uiPort := flag.Int("ui-port", 8233, "Web UI port on 127.0.0.1 (0: none)")
	db := flag.String("db", ".data/temporal.db", "SQLite file, kept across restarts (\"\": in memory)")
	logLevel := flag.String("log-level", "warn", "server log level (debug, info, warn, error)")
	flag.Parse()
	if err := run(*port, *uiPort, *db, *logLevel); err != nil {
		fmt.Fprintln(os.Stderr, "devserver:", err)
		os.Exit(1)
	}
}

func run(port, uiPort int, db, logLevel string) error {
	if db != "" {
		if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
			return err
		}
		abs, err := filepath.Abs(db)
		if err != nil {
			return err
		}
		db = abs
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := devserver.Start(ctx, devserver.Options{Port: port, UIPort: uiPort, DBFile: db, LogLevel: logLevel, Log: os.Stderr})
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Printf("%s on %s", toolbin.TemporalDevServer, srv.Address)
	if srv.UIURL != "" {
		fmt.Printf(", UI %s", srv.UIURL)
	}
	if db != "" {
		fmt.Printf(", data in %s", db)
	}
	fmt.Println(" (Ctrl-C stops it)")
	<-ctx.Done()
	return nil
}
