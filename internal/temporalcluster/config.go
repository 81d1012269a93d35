package temporalcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"text/template"

	"github.com/rackroll/rackroll/internal/devserver"
)

// The deployment this package runs, and docker-compose.yml describes in
// container form (compose_test.go keeps the two in step).
const (
	// ServerVersion is the Temporal server of bin/ (toolbin.TemporalServer,
	// toolbin.TemporalSQLTool) and the compose images' tag.
	ServerVersion = "1.32.1"
	// Plugin is the SQL plugin of both stores.
	Plugin = "postgres12"
	// Database holds the executions, VisibilityDatabase the visibility
	// records behind list queries and search attributes.
	Database           = "temporal"
	VisibilityDatabase = "temporal_visibility"
	// Namespace is the namespace registered for rackroll.
	Namespace = "default"
	// HistoryShards is small, but more than one: shards are what the
	// history service owns and re-acquires when it restarts.
	HistoryShards = 4
)

// Services are the Temporal services, each run as its own process.
var Services = []string{"history", "matching", "frontend", "worker"}

// layout is what the config template needs.
type layout struct {
	Postgres      string
	User, Pass    string
	Plugin        string
	Stores        map[string]string // store name → database
	Shards        int
	Services      map[string]devserver.Ports
	FrontendHTTP  int
	DynamicConfig string
}

// writeConfig writes <dir>/config/development.yaml (what `temporal-server
// --root dir start` loads) and the dynamic config file, on free loopback
// ports, and returns the ports.
func writeConfig(dir, postgresAddr, password string) (layout, error) {
	l := layout{Postgres: postgresAddr, User: User, Pass: password, Plugin: Plugin, Shards: HistoryShards,
		Stores:        map[string]string{"postgres-default": Database, "postgres-visibility": VisibilityDatabase},
		Services:      map[string]devserver.Ports{},
		DynamicConfig: filepath.Join(dir, "dynamicconfig.yaml")}
	var err error
	for _, s := range Services {
		var p devserver.Ports
		if p.GRPC, err = devserver.FreePort(); err != nil {
			return l, err
		}
		if p.Membership, err = devserver.LoopbackPort(); err != nil {
			return l, err
		}
		l.Services[s] = p
	}
	if l.FrontendHTTP, err = devserver.FreePort(); err != nil {
		return l, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return l, err
	}
	f, err := os.Create(filepath.Join(dir, "config", "development.yaml"))
	if err != nil {
		return l, err
	}
	defer f.Close()
	if err := configTemplate.Execute(f, l); err != nil {
		return l, err
	}
	return l, os.WriteFile(l.DynamicConfig, []byte(dynamicConfig), 0o644)
}

// FrontendAddr is where clients, workers and the CLI connect.
func (l layout) FrontendAddr() string {
	return fmt.Sprintf("127.0.0.1:%d", l.Services["frontend"].GRPC)
}

// The server's static config, after the module's
// config/development-postgres12.yaml: loopback only, no archival, no
// metrics or pprof listeners.
var configTemplate = template.Must(template.New("config").Parse(`log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: {{.Shards}}
  datastores:
{{- range $name, $db := .Stores}}
    {{$name}}:
      sql:
        pluginName: "{{$.Plugin}}"
        databaseName: "{{$db}}"
        connectAddr: "{{$.Postgres}}"
        connectProtocol: "tcp"
        user: "{{$.User}}"
        password: "{{$.Pass}}"
        maxConns: 10
        maxIdleConns: 10
        maxConnLifetime: "1h"
{{- end}}
` + devserver.SharedConfig))

// dynamicConfig: search attributes registered a moment ago are usable at
// once (the dev server sets the same), instead of after the frontend's
// cache refresh.
const dynamicConfig = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`
