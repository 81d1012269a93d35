package temporalcluster

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// The generated config is YAML the server reads: both stores on the
// given PostgreSQL, every service on its own loopback ports.
func TestConfigHasEveryServiceOnLoopback(t *testing.T) {
	dir := t.TempDir()
	l, err := writeConfig(dir, "127.0.0.1:5999", "pw-of-this-run")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "config", "development.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Persistence struct {
			NumHistoryShards int `json:"numHistoryShards"`
			Datastores       map[string]struct {
				SQL struct{ PluginName, DatabaseName, ConnectAddr string } `json:"sql"`
			} `json:"datastores"`
		} `json:"persistence"`
		Services map[string]struct {
			RPC struct {
				GRPCPort       int    `json:"grpcPort"`
				MembershipPort int    `json:"membershipPort"`
				BindOnIP       string `json:"bindOnIP"`
			} `json:"rpc"`
		} `json:"services"`
		PublicClient struct{ HostPort string } `json:"publicClient"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if cfg.Persistence.NumHistoryShards != HistoryShards {
		t.Errorf("numHistoryShards = %d", cfg.Persistence.NumHistoryShards)
	}
	dbs := map[string]bool{}
	for name, ds := range cfg.Persistence.Datastores {
		if ds.SQL.PluginName != Plugin || ds.SQL.ConnectAddr != "127.0.0.1:5999" {
			t.Errorf("store %s = %+v", name, ds.SQL)
		}
		dbs[ds.SQL.DatabaseName] = true
	}
	if len(dbs) != 2 || !dbs[Database] || !dbs[VisibilityDatabase] {
		t.Errorf("databases %v, want %s and %s", dbs, Database, VisibilityDatabase)
	}
	seen := map[int]bool{}
	for _, s := range Services {
		rpc := cfg.Services[s].RPC
		if rpc.BindOnIP != "127.0.0.1" || rpc.GRPCPort == 0 || seen[rpc.GRPCPort] || seen[rpc.MembershipPort] {
			t.Errorf("service %s rpc = %+v (ports must be distinct, on loopback)", s, rpc)
		}
		seen[rpc.GRPCPort], seen[rpc.MembershipPort] = true, true
	}
	if cfg.PublicClient.HostPort != l.FrontendAddr() {
		t.Errorf("publicClient %q, want the frontend %s", cfg.PublicClient.HostPort, l.FrontendAddr())
	}
}
