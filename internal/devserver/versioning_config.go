package devserver

import "text/template"

// The single process's static config, after the server module's
// config/development-sqlite.yaml: SQLite in memory (the plugin creates
// the schema at start; one connection, since each in-memory connection
// is a database of its own), one history shard, loopback only, no
// archival, metrics or pprof listeners.
var versioningConfig = template.Must(template.New("config").Parse(`log:
  stdout: true
  level: error
persistence:
  defaultStore: sqlite-default
  visibilityStore: sqlite-visibility
  numHistoryShards: 1
  datastores:
{{- range $store := .Stores}}
    {{$store}}:
      sql:
        pluginName: "sqlite"
        databaseName: "default"
        connectAddr: "localhost"
        connectProtocol: "tcp"
        connectAttributes:
          mode: "memory"
          cache: "private"
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

// versioningDynamicConfig (docs/self-upgrade.md#the-temporal-server): the
// first four are 1.32.1's defaults, written out so that a server upgrade
// cannot turn them off unseen; the suggestion to continue as new stays
// about history size (the runs read the dedicated flag); search
// attributes are usable as soon as registered, as with start-dev.
var versioningDynamicConfig = template.Must(template.New("dynamic").Parse(`system.enableDeploymentVersions:
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
{{- if .Drainage}}
matching.wv.VersionDrainageStatusRefreshInterval:
  - value: {{.Drainage}}
matching.wv.VersionDrainageStatusVisibilityGracePeriod:
  - value: {{.Drainage}}
{{- end}}
`))
