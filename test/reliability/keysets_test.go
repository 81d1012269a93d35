package reliability

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The secret scan over keysets (docs/keysets.md#where-keys-are-and-are-not):
// a BMC keyset whose password Secret holds a known marker and a BMM
// keyset are created, applied and applied again through the starter
// binary on a one-rack site. The marker reaches every BMC (the lab reads
// it back: the worker did read the Secret and send it), and no history,
// worker log or starter output (`keyset create|apply|list|show` among the
// commands) holds it; nor the BMM user's private key, which rackroll never
// had (a public key is not a secret: the ledger keeps it).
//
// The worker runs in the test, because it reads the Secret from the
// site's Kubernetes API (the lab's) as a worker in the cluster does; its
// SDK log, activities' lines included, goes to a file of its own.
func TestKeysetSecrets(t *testing.T) {
	t.Parallel()
	rng := rngFor(t)
	marker := fmt.Sprintf("rr-keyset-marker-%016x", rng.Uint64())
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	priv, pubLine := keysettest.New(seed, "alice@test")

	s := &site{}
	s.Env = e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{Mutate: noLabSection, StartWorker: func(e *e2e.Env) {
		kc := e.Clientset(e.Context(time.Minute))
		putKeysetObjects(t, kc, marker)
		s.workLog = filepath.Join(e.Dir, "worker.log")
		f, err := os.Create(s.workLog)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		c, err := client.Dial(client.Options{HostPort: e.Server.Address,
			Logger: log.NewStructuredLogger(slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		w := wiring.New(c, wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second,
			Management: func() (kubernetes.Interface, error) { return kc, nil }})
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
	}})
	expires := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	specs := []keyset.Spec{
		{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: expires,
			Accounts: []keyset.Account{{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}},
		{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: expires,
			Users: []keyset.User{{Name: "alice", SSHPublicKey: pubLine}}},
	}
	var out bytes.Buffer
	for _, verb := range []string{"create", "apply"} {
		since := time.Now()
		for _, sp := range specs {
			args := []string{"keyset", verb, "--cluster", s.Cluster, "--name", sp.Name}
			if verb == "create" {
				args = []string{"keyset", verb, "--cluster", s.Cluster, "--file", keysetFile(t, s, sp)}
			}
			out.Write(starterRun(t, s, args...))
		}
		for _, sp := range specs {
			s.Eventually(2*time.Minute, sp.Name+" applied on every BMM after "+verb, func() bool { return appliedSince(s, sp.Name, since) })
		}
	}
	for _, m := range s.Lab.Machines() {
		if !m.BMC.AccountPasswordIs("alice", marker) {
			t.Errorf("%s: account alice has not the Secret's password: the scan would prove nothing", m.Name)
		}
	}
	s.scanOutput = out.Bytes()
	s.scanCmds = [][]string{
		{"keyset", "list", "--cluster", s.Cluster}, {"keyset", "list", "--cluster", s.Cluster, "-o", "json"},
		{"keyset", "show", "--cluster", s.Cluster, "--name", "bmc-oncall"}, {"keyset", "show", "--cluster", s.Cluster, "--name", "bmc-oncall", "-o", "yaml"},
		{"keyset", "show", "--cluster", s.Cluster, "--name", "oncall"}, {"keyset", "show", "--cluster", s.Cluster, "--name", "oncall", "-o", "json"},
	}
	s.scanNeedles = [][]byte{[]byte(marker), []byte(base64.StdEncoding.EncodeToString([]byte(marker))),
		[]byte(base64.StdEncoding.EncodeToString([]byte("alice:" + marker))),
		[]byte(base64.StdEncoding.EncodeToString(priv)), []byte(base64.StdEncoding.EncodeToString(seed)), []byte("PRIVATE KEY")}

	const sc = "keysets"
	checkSecrets(t, s, sc, targetVersion)
	// The scan covered keysets: their runs' histories, their commands.
	hist, _ := exportHistories(t, s, filepath.Join(s.Dir, "histories-keysets"))
	checkBool(t, sc+": keyset runs among the histories scanned", bytes.Contains(hist, []byte("keyset:"+s.Cluster+":bmc-oncall")) &&
		bytes.Contains(hist, []byte("keyset-nodes:"+s.Cluster)))
	logs, err := os.ReadFile(s.workLog)
	if err != nil {
		t.Fatal(err)
	}
	checkBool(t, sc+": the worker log has the keyset activities' lines", bytes.Contains(logs, []byte("EnsureAccount")) &&
		bytes.Contains(logs, []byte("ApplyNodeKeys")))
	fp, err := keyset.ParsePublicKey(pubLine)
	if err != nil {
		t.Fatal(err)
	}
	shown := starterRun(t, s, "keyset", "show", "--cluster", s.Cluster, "--name", "oncall")
	checkBool(t, sc+": keyset show names the key by fingerprint", bytes.Contains(shown, []byte(fp.Fingerprint)))
}

// putKeysetObjects makes what a site holds for keysets: the Secret with
// alice's BMC password and the keyset pods' namespace (deploy/keysets.yaml).
func putKeysetObjects(t *testing.T, kc kubernetes.Interface, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, ns := range []string{"rackroll", keyset.NodeNamespace} {
		if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	if _, err := kc.CoreV1().Secrets("rackroll").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bmc-alice"},
		Data: map[string][]byte{"password": []byte(password)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// appliedSince: every BMM has an outcome of keyset name recorded at or
// after since, each applied.
func appliedSince(s *site, name string, since time.Time) bool {
	st := s.State()
	k, ok := keyset.Find(st.Keysets, name)
	if !ok || len(k.Outcomes) < len(st.Cluster.BMMs) {
		return false
	}
	for _, o := range k.Outcomes {
		if o.State != keyset.Applied || o.At.Before(since.Add(-time.Second)) {
			return false
		}
	}
	return true
}

// starterRun runs the starter binary against the site; a failure fails
// the test, with what it printed.
func starterRun(t *testing.T, s *site, args ...string) []byte {
	t.Helper()
	_, starter := e2e.Binaries(t, &commands)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, starter, args...)
	cmd.Env = e2e.StarterEnv(s.Server.Address, t.TempDir())
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("starter %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return append([]byte(fmt.Sprintf("$ starter %s\n", strings.Join(args, " "))), b...)
}

// keysetFile writes sp as a keyset file (JSON, which the starter reads
// like YAML).
func keysetFile(t *testing.T, s *site, sp keyset.Spec) string {
	t.Helper()
	b, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Dir, sp.Name+".json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
