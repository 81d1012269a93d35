package kubeapi

import (
	"fmt"
	"path/filepath"
	"strings"
)

// etcdArgs runs a single-member etcd on loopback. fsync is off: the data
// is throwaway and fsync dominates start-up and write latency on CI disks.
func etcdArgs(dir string, clientPort, peerPort int) []string {
	client := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	return []string{
		"--name=lab",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=lab=" + peer,
		"--initial-cluster-state=new",
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

// disabledAdmission lists default admission plugins that expect controllers
// the lab does not run: ServiceAccount wants each namespace's "default"
// account (made by the controller manager); TaintNodesByCondition adds a
// not-ready taint that only the node lifecycle controller would remove.
var disabledAdmission = []string{"ServiceAccount", "TaintNodesByCondition"}

// apiserverArgs configures kube-apiserver for a fast, private start: RBAC
// with the admin token in system:masters, the generated serving pair, and
// subsystems the lab does not need turned off (priority and fairness, the
// kubernetes service endpoint reconciler, the garbage collector, profiling).
func apiserverArgs(dir string, p *pki, port, etcdPort int) []string {
	return []string{
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", etcdPort),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--tls-cert-file=" + p.certFile,
		"--tls-private-key-file=" + p.keyFile,
		"--token-auth-file=" + p.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saPubFile,
		"--service-account-signing-key-file=" + p.saKeyFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=" + strings.Join(disabledAdmission, ","),
		"--allow-privileged=true",
		"--enable-priority-and-fairness=false",
		"--endpoint-reconciler-type=none",
		"--enable-garbage-collector=false",
		"--profiling=false",
		"--v=0",
	}
}
