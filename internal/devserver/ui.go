package devserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"text/template"
	"time"

	"github.com/rackroll/rackroll/internal/toolbin"
)

// uiConfig is the Web UI server's config, what start-dev gives its UI: on
// loopback, the server's frontend, the UI on, cookies over plain HTTP.
var uiConfig = template.Must(template.New("ui").Parse(`host: 127.0.0.1
port: {{.Port}}
temporalGrpcAddress: {{.Frontend}}
enableUi: true
hideLogs: true
defaultNamespace: default
cors:
  cookieInsecure: true
`))

// startUI runs toolbin.TemporalUI on port and waits until it serves.
func (s *Server) startUI(ctx context.Context, port int, log io.Writer) error {
	bin, err := toolbin.Path(toolbin.TemporalUI)
	if err != nil {
		return err
	}
	dir := filepath.Join(s.dir, "ui")
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return err
	}
	data := struct {
		Port     int
		Frontend string
	}{port, s.Address}
	if err := writeTemplate(filepath.Join(dir, "config", "development.yaml"), uiConfig, data); err != nil {
		return err
	}
	p, err := s.run(bin, log, "--root", dir, "--config", "config", "--env", "development", "start")
	if err != nil {
		return err
	}
	s.UIURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.UIURL)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("temporal UI server exited early: %s", p.log.String())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("temporal UI on %s not serving after 30s: %v\n%s", s.UIURL, err, p.log.String())
		}
	}
}
