package kubeapi

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig that verifies the server against the
// generated CA (no insecure-skip-tls-verify) and authenticates with the
// admin token. The file is 0600: it holds a credential.
func writeKubeconfig(path, url string, p *labPKI) (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["lab"] = &clientcmdapi.Cluster{Server: url, CertificateAuthorityData: p.caPEM}
	cfg.AuthInfos["lab-admin"] = &clientcmdapi.AuthInfo{Token: p.token}
	cfg.Contexts["lab"] = &clientcmdapi.Context{Cluster: "lab", AuthInfo: "lab-admin", Namespace: "default"}
	cfg.CurrentContext = "lab"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", err
	}
	return path, nil
}
