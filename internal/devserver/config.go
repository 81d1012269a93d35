package devserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/template"
)

// SharedConfig is the part of the static config every rackroll Temporal
// server has, this package's single process and temporalcluster's process
// per service: loopback only, one cluster "active", the services' ports
// (Services, FrontendHTTP), FrontendAddr for clients, and DynamicConfig.
const SharedConfig = `global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
{{- range $name, $p := .Services}}
  {{$name}}:
    rpc:
      grpcPort: {{$p.GRPC}}
      membershipPort: {{$p.Membership}}
      bindOnIP: "127.0.0.1"
{{- if eq $name "frontend"}}
      httpPort: {{$.FrontendHTTP}}
{{- end}}
{{- end}}
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
      rpcAddress: "{{.FrontendAddr}}"
      httpAddress: "127.0.0.1:{{.FrontendHTTP}}"
dcRedirectionPolicy:
  policy: "noop"
publicClient:
  hostPort: "{{.FrontendAddr}}"
dynamicConfigClient:
  filepath: "{{.DynamicConfig}}"
  pollInterval: "10s"
`

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
` + SharedConfig))

// dynamicConfig (docs/self-upgrade.md#the-temporal-server): the
// first four are 1.32.1's defaults, written out so that a server upgrade
// cannot turn them off unseen; the suggestion to continue as new stays
// about history size (the runs read the dedicated flag). The rest is what
// start-dev sets: search attributes usable as soon as registered, and the
// persistence and visibility rates and the history cache raised to match.
// One setting start-dev lacks: the transfer queue's read rate. The server
// reads a shard's transfer tasks (the workflow tasks, activity tasks and
// child starts it has to dispatch; an Update's speculative task is not
// one) at most transferProcessorMaxPollRPS times a second, 20 by default,
// per shard (server common/dynamicconfig/constants.go; the limiter is made
// in service/history/queues/queue_base.go from reader_quotas.go). This
// server has one shard, so once that shard has more than 20 reads a second
// to make, each dispatch waits up to 50 ms for the next: the dispatch
// links of an upgrade's chain parent → rack → server took 35–45 ms at
// sixteen racks, and 2–4 ms with 400 (docs/performance.md).
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
history.transferProcessorMaxPollRPS:
  - value: 400
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
	Frontend, FrontendHTTP        int
	Services                      map[string]Ports // frontend, history, matching, worker
	LogLevel                      string
	DynamicConfig                 string
	Drainage                      string
	DefaultStore, VisibilityStore string
	Stores                        []store
}

// Ports of one service: gRPC and ringpop membership.
type Ports struct{ GRPC, Membership int }

// FrontendAddr is where clients connect.
func (l layout) FrontendAddr() string { return fmt.Sprintf("127.0.0.1:%d", l.Frontend) }

// store is one SQLite datastore.
type store struct {
	Name, Database string
	Attrs          map[string]string
}

// writeLayout writes <dir>/config/development.yaml and the dynamic config
// on free loopback ports (the frontend's is Options.Port when set).
func writeLayout(dir string, opts Options) (layout, error) {
	l := layout{Frontend: opts.Port, LogLevel: opts.LogLevel, Services: map[string]Ports{}}
	if l.LogLevel == "" {
		l.LogLevel = "error"
	}
	free := func(p *int) (err error) {
		if *p == 0 {
			*p, err = LoopbackPort()
		}
		return err
	}
	if err := errors.Join(free(&l.Frontend), free(&l.FrontendHTTP)); err != nil {
		return l, err
	}
	for _, name := range []string{"frontend", "history", "matching", "worker"} {
		p := Ports{}
		if name == "frontend" {
			p.GRPC = l.Frontend
		}
		if err := errors.Join(free(&p.GRPC), free(&p.Membership)); err != nil {
			return l, err
		}
		l.Services[name] = p
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
