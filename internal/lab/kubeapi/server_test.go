package kubeapi

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func TestStartServesAKubeconfigAndStopLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	t.Logf("etcd + kube-apiserver ready in %v", time.Since(began).Round(time.Millisecond))

	// The written kubeconfig, not just the in-process config, must work,
	// verifying TLS against the generated CA.
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Insecure {
		t.Fatal("kubeconfig skips TLS verification")
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Pods are admitted without a ServiceAccount controller.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "x"}}}}
	if _, err := s.Client().CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	pids := s.PIDs()
	dir := s.Dir()
	if len(pids) != 2 {
		t.Fatalf("PIDs = %v", pids)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("process %d still running after Stop", pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp dir %s not removed: %v", dir, err)
	}
}

func TestCancelledContextStopsTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	s, err := Start(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	pids := s.PIDs()
	cancel()
	// Stop runs in the background; it has finished once both are gone.
	deadline := time.Now().Add(time.Minute)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still running a minute after cancel", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// A given DataDir is the caller's: it is kept, logs included.
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver.log")); err != nil {
		t.Errorf("apiserver log missing from the given DataDir: %v", err)
	}
}

func TestBusyPortIsAClearError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = Start(context.Background(), Options{APIServerPort: port})
	if err == nil || !strings.Contains(err.Error(), "already in use") {
		if strings.Contains(errString(err), "make tools") {
			t.Skip("tool binaries not built")
		}
		t.Fatalf("want a port-in-use error, got %v", err)
	}
}

func TestMissingBinariesSayMakeTools(t *testing.T) {
	t.Setenv("RACKROLL_BIN", t.TempDir())
	_, err := Start(context.Background(), Options{})
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("want the toolbin error, got %v", err)
	}
}

func TestFailedChecksKeepsOnlyFailures(t *testing.T) {
	body := "[+]ping ok\n[-]etcd failed: reason withheld\n[+]log ok\nreadyz check failed\n"
	if got := failedChecks(body); got != "[-]etcd failed: reason withheld" {
		t.Fatalf("failedChecks = %q", got)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
