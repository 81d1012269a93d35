package kubeapi

import (
	"fmt"
	"path/filepath"
	"strings"
)

// memberArgs runs one etcd member on loopback: clients over TLS with
// client-certificate auth, peers over plain HTTP (loopback only). fsync is
// off: the data is throwaway and fsync dominates start-up and write latency
// on CI disks.
func memberArgs(s *slot, t EtcdTLS, initialCluster, state string) []string {
	return []string{
		"--name=" + s.Name,
		"--data-dir=" + s.dataDir,
		"--listen-client-urls=" + s.clientURL(),
		"--advertise-client-urls=" + s.clientURL(),
		"--listen-peer-urls=" + s.peerURL(),
		"--initial-advertise-peer-urls=" + s.peerURL(),
		"--initial-cluster=" + initialCluster,
		"--initial-cluster-state=" + state,
		"--initial-cluster-token=rackroll-lab",
		"--cert-file=" + t.ServerCertFile,
		"--key-file=" + t.ServerKeyFile,
		"--trusted-ca-file=" + t.CAFile,
		"--client-cert-auth=true",
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
func apiserverArgs(dir string, p *labPKI, port int, etcd []string, t EtcdTLS) []string {
	return []string{
		"--etcd-servers=" + strings.Join(etcd, ","),
		"--etcd-cafile=" + t.CAFile,
		"--etcd-certfile=" + t.CertFile,
		"--etcd-keyfile=" + t.KeyFile,
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
