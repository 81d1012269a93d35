package etcd

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/toolbin"
)

// startEtcd runs bin/etcd as a one-member cluster named name on free
// loopback ports and returns its client URL; it is stopped at cleanup.
func startEtcd(t *testing.T, name string) string {
	t.Helper()
	bin, err := toolbin.Path("etcd")
	if err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 2)
	client, peer := fmt.Sprintf("http://127.0.0.1:%d", ports[0]), fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	dir := t.TempDir()
	log, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--name="+name, "--data-dir="+filepath.Join(dir, "data"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster="+name+"="+peer, "--initial-cluster-state=new",
		"--unsafe-no-fsync=true", "--log-level=warn")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = log.Close()
	})
	return client
}

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return out
}

func TestObserveEtcdOneMember(t *testing.T) {
	if testing.Short() {
		t.Skip("starts bin/etcd")
	}
	url := startEtcd(t, "rack1-mgmt1")
	a := &Activities{DialTimeout: 2 * time.Second, RequestTimeout: 2 * time.Second}
	var obs Observation
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		before := time.Now()
		obs, err = a.ObserveEtcd(context.Background(), ObserveInput{Spec: model.EtcdSpec{Endpoints: []string{url}}})
		if err != nil {
			t.Fatalf("ObserveEtcd: %v", err)
		}
		if obs.SeenAt.Before(before.Add(-time.Second)) {
			t.Fatalf("SeenAt %s is older than the call (%s)", obs.SeenAt, before)
		}
		if obs.Err == "" && len(obs.Members) == 1 && obs.Members[0].Healthy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd never observed healthy: %+v", obs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	m := obs.Members[0]
	if m.Name != "rack1-mgmt1" || !m.Leader || m.ClientURL != url || m.ID == "" || m.Revision < 1 {
		t.Errorf("member %+v: want rack1-mgmt1, leader, client URL %s, an id and a revision", m, url)
	}
	if len(obs.Alarms) != 0 {
		t.Errorf("alarms %v on a fresh etcd", obs.Alarms)
	}
}

func TestObserveEtcdUnreachableIsAFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for dial timeouts")
	}
	port := freePorts(t, 1)[0] // nothing listens there
	a := &Activities{DialTimeout: 300 * time.Millisecond, RequestTimeout: 500 * time.Millisecond}
	obs, err := a.ObserveEtcd(context.Background(), ObserveInput{Spec: model.EtcdSpec{Endpoints: []string{fmt.Sprintf("http://127.0.0.1:%d", port)}}})
	if err != nil {
		t.Fatalf("an unreachable cluster must be an observation, not an error: %v", err)
	}
	if obs.Err == "" || obs.SeenAt.IsZero() || len(obs.Members) != 0 {
		t.Errorf("observation %+v: want Err set, SeenAt set, no members", obs)
	}
}

func TestObserveEtcdBadInput(t *testing.T) {
	a := &Activities{}
	_, err := a.ObserveEtcd(context.Background(), ObserveInput{})
	if err == nil || !strings.Contains(err.Error(), "controlPlane.etcd.endpoints") {
		t.Errorf("empty endpoints: got %v, want an error naming controlPlane.etcd.endpoints", err)
	}
	_, err = a.ObserveEtcd(context.Background(), ObserveInput{Spec: model.EtcdSpec{Endpoints: []string{"https://127.0.0.1:1"}, CertFile: "/nonexistent/c.pem", KeyFile: "/nonexistent/k.pem"}})
	if err == nil || !strings.Contains(err.Error(), "certFile") {
		t.Errorf("missing TLS files: got %v, want an error naming certFile", err)
	}
}
