package devserver

import (
	"os"
	"path/filepath"
	"text/template"
)

// The single process's static config, after the server module's
// config/development-sqlite.yaml: SQLite (in memory, the plugin creates
// the schema at start, one connection since each in-memory connection is a
// database of its own; or in a file, set up when new, as start-dev does),
// one history shard, loopback only, no archival, metrics or pprof
// listeners.
var serverConfig = template.Must(template.New("config").Parse(`log:
  stdout: true
  level: {{.LogLevel}}
persistence:
  defaultStore: {{.DefaultStore}}
  visibilityStore: {{.VisibilityStore}}
  numHistoryShards: 1
  datastores:
{{- range $store := .Stores}}
    {{$store.Name}}:
      sql:
        pluginName: "sqlite"
        databaseName: "{{$store.Database}}"
        connectAddr: "localhost"
        connectProtocol: "tcp"
        connectAttributes:
{{- range $k, $v := $store.Attrs}}
          {{$k}}: "{{$v}}"
{{- end}}
        maxConns: 1
        maxIdleConns: 1
        maxConnLifetime: "1h"
{{- end}}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:
    rpc:
      grpcPort: {{.Frontend}}
      membershipPort: {{index .Membership 0}}
      bindOnIP: "127.0.0.1"
      httpPort: {{.FrontendHTTP}}
  history:
    rpc:
      grpcPort: {{.History}}
      membershipPort: {{index .Membership 1}}
      bindOnIP: "127.0.0.1"
  matching:
    rpc:
      grpcPort: {{.Matching}}
      membershipPort: {{index .Membership 2}}
      bindOnIP: "127.0.0.1"
  worker:
    rpc:
      grpcPort: {{.Worker}}
      membershipPort: {{index .Membership 3}}
      bindOnIP: "127.0.0.1"
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:{{.Frontend}}"
      httpAddress: "127.0.0.1:{{.FrontendHTTP}}"
dcRedirectionPolicy:
  policy: "noop"
publicClient:
  hostPort: "127.0.0.1:{{.Frontend}}"
dynamicConfigClient:
  filepath: "{{.DynamicConfig}}"
  pollInterval: "10s"
`))

// dynamicConfig (docs/self-upgrade.md#the-temporal-server): the
// first four are 1.32.1's defaults, written out so that a server upgrade
// cannot turn them off unseen; the suggestion to continue as new stays
// about history size (the runs read the dedicated flag). The rest is what
// start-dev sets: search attributes usable as soon as registered, and the
// persistence and visibility rates and the history cache raised to match.
var dynamicConfig = template.Must(template.New("dynamic").Parse(`system.enableDeploymentVersions:
  - value: true
frontend.workerVersioningWorkflowAPIs:
  - value: true
system.enableSendTargetVersionChanged:
  - value: true
system.useRevisionNumberForWorkerVersioning:
  - value: true
system.enableSuggestCaNOnNewTargetVersion:
  - value: false
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
frontend.persistenceMaxQPS:
  - value: 10000
history.persistenceMaxQPS:
  - value: 45000
history.hostLevelCacheMaxSize:
  - value: 8096
frontend.namespaceRPS.visibility:
  - value: 100
{{- if .Drainage}}
matching.wv.VersionDrainageStatusRefreshInterval:
  - value: {{.Drainage}}
matching.wv.VersionDrainageStatusVisibilityGracePeriod:
  - value: {{.Drainage}}
{{- end}}
`))

// layout is what the templates fill in: the single process's listeners
// and stores.
type layout struct {
	Frontend, FrontendHTTP, History, Matching, Worker int
	Membership                                        [4]int
	LogLevel                                          string
	DynamicConfig                                     string
	Drainage                                          string
	DefaultStore, VisibilityStore                     string
	Stores                                            []store
}

// store is one SQLite datastore.
type store struct {
	Name, Database string
	Attrs          map[string]string
}

// writeLayout writes <dir>/config/development.yaml and the dynamic config
// on free loopback ports (the frontend's is Options.Port when set).
func writeLayout(dir string, opts Options) (layout, error) {
	l := layout{Frontend: opts.Port, LogLevel: opts.LogLevel}
	if l.LogLevel == "" {
		l.LogLevel = "error"
	}
	for _, p := range []*int{&l.Frontend, &l.FrontendHTTP, &l.History, &l.Matching, &l.Worker,
		&l.Membership[0], &l.Membership[1], &l.Membership[2], &l.Membership[3]} {
		var err error
		if *p == 0 {
			if *p, err = FreePort(); err != nil {
				return l, err
			}
		}
	}
	if opts.DBFile == "" {
		// Executions and visibility each in a private in-memory database.
		l.Stores = []store{{Name: "sqlite-default", Database: "default", Attrs: map[string]string{"mode": "memory", "cache": "private"}},
			{Name: "sqlite-visibility", Database: "default", Attrs: map[string]string{"mode": "memory", "cache": "private"}}}
		l.DefaultStore, l.VisibilityStore = "sqlite-default", "sqlite-visibility"
	} else {
		// Both in the one file, as start-dev keeps them; "setup" creates
		// the schema when the file is new and keeps what a restart finds.
		l.Stores = []store{{Name: "sqlite-default", Database: opts.DBFile, Attrs: map[string]string{"mode": "rwc", "setup": "true"}}}
		l.DefaultStore, l.VisibilityStore = "sqlite-default", "sqlite-default"
	}
	l.DynamicConfig = filepath.Join(dir, "dynamicconfig.yaml")
	if opts.Drainage > 0 {
		l.Drainage = opts.Drainage.String()
	}
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return l, err
	}
	if err := writeTemplate(filepath.Join(dir, "config", "development.yaml"), serverConfig, l); err != nil {
		return l, err
	}
	return l, writeTemplate(l.DynamicConfig, dynamicConfig, l)
}

func writeTemplate(path string, t *template.Template, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.Execute(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
