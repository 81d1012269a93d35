package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/kubesim"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func fastTimings() Timings {
	return Timings{Boot: model.Duration(200 * time.Millisecond), Reimage: model.Duration(300 * time.Millisecond),
		PowerTransition: model.Duration(100 * time.Millisecond), Drain: model.Duration(200 * time.Millisecond)}
}

// The lab for examples/four-rack.yaml: a Node per BMM with the docs/design.md
// labels, a Redfish BMC per BMM answering with the inventory's credentials,
// and a reimage through the bmc activities that changes the node's osImage
// (its kubelets are stock: the runtime-version label stays the one of its
// first registration) and lands in the event log.
func TestLabUpFourRack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	// The example references these; the caller's values must change nothing.
	t.Setenv("BMC_USERNAME", "junk-user")
	t.Setenv("BMC_PASSWORD", "junk-password")
	inv, err := model.LoadInventory("../../examples/four-rack.yaml")
	require.NoError(t, err)
	// A vendor per rack. rack2 keeps the helpful BMC because the reimage
	// below runs the activities' client, which judges completion from the
	// helpful profile's OS version (until the in-band reimage lands).
	profiles := map[string]string{"rack1": "idrac9", "rack2": "helpful", "rack3": "supermicro", "rack4": "ilo5"}
	put(t, inv, Section{Lab: &Spec{BMCProfiles: profiles}})
	dir := t.TempDir()
	evPath := filepath.Join(dir, "events.jsonl")
	l, err := Start(context.Background(), Options{Inventory: inv, Dir: filepath.Join(dir, "lab"), EventsPath: evPath, Timings: fastTimings()})
	require.NoError(t, err)
	defer l.Stop()
	outPath := filepath.Join(dir, "lab.yaml")
	require.NoError(t, l.WriteOutInventory(outPath))
	out, err := model.LoadInventory(outPath)
	require.NoError(t, err)
	require.NoError(t, out.ValidateForSite(), "the out-inventory is a complete site")

	// Kubernetes through the written kubeconfig, as kubectl would.
	cfg, err := clientcmd.BuildConfigFromFlags("", out.Kubernetes.Kubeconfig)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes.Items, 42)
	labels := map[string]map[string]string{}
	for _, n := range nodes.Items {
		labels[n.Name] = n.Labels
	}
	require.Equal(t, "kcp", labels["rack1-mgmt1"]["rackroll.io/role"])
	require.Equal(t, "kcp-spare", labels["rack4-mgmt1"]["rackroll.io/role"])
	require.Equal(t, "compute", labels["rack3-c5"]["rackroll.io/role"])
	require.Equal(t, "rack3", labels["rack3-c5"]["rackroll.io/rack"])
	require.Contains(t, []string{"a", "b"}, labels["rack1-mgmt2"]["rackroll.io/management-group"])
	require.Equal(t, "4.1.2", labels["rack2-c1"]["rackroll.io/runtime-version"])

	// Every BMC answers Redfish over HTTPS verified against the lab's CA
	// (the out-inventory's bmcCAFile) with the credentials the
	// out-inventory references, plays its rack's vendor, and refuses
	// without credentials.
	ref := out.BMCCredentials["default"]
	user, _ := os.ReadFile(ref.UsernameFile)
	pass, _ := os.ReadFile(ref.PasswordFile)
	require.Equal(t, filepath.Join(dir, "lab", "bmc-ca.crt"), out.BMCCAFile)
	hc := redfishtest.TrustingOnly(t, out.BMCCAFile)
	get := func(url string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.SetBasicAuth(strings.TrimSpace(string(user)), strings.TrimSpace(string(pass)))
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var d map[string]any
		json.NewDecoder(resp.Body).Decode(&d)
		return resp.StatusCode, d
	}
	for _, s := range out.Servers() {
		require.True(t, strings.HasPrefix(s.Server.BMC.Address, "https://127.0.0.1:"), s.Server.BMC.Address)
		require.False(t, s.Server.BMC.InsecureSkipVerify)
		require.Equal(t, out.BMCCAFile, s.Server.BMC.CAFile, "the site's CA file applies to every BMC")
		code, coll := get(s.Server.BMC.Address + "/redfish/v1/Systems")
		require.Equal(t, 200, code, s.Server.Name)
		members := coll["Members"].([]any)
		code, sys := get(s.Server.BMC.Address + members[0].(map[string]any)["@odata.id"].(string))
		require.Equal(t, 200, code, s.Server.Name)
		require.Equal(t, "On", sys["PowerState"], s.Server.Name)
		want, _ := redfish.LookupProfile(profiles[s.Rack])
		require.Equal(t, want.Manufacturer, sys["Manufacturer"], s.Server.Name)
		require.Equal(t, profiles[s.Rack], l.Machine(s.Server.Name).Profile)
	}
	resp, err := hc.Get(out.Racks[0].Servers[0].BMC.Address + "/redfish/v1/Systems/System.Embedded.1")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode)
	_, err = http.Get(out.Racks[0].Servers[0].BMC.Address + "/redfish/v1")
	require.ErrorContains(t, err, "certificate", "without the lab's CA the BMC's certificate is not trusted")

	// A reimage through the activities, as a workflow would run it.
	var ts testsuite.WorkflowTestSuite
	aenv := ts.NewTestActivityEnvironment()
	acts := &bmc.Activities{PollInterval: 100 * time.Millisecond}
	aenv.RegisterActivity(acts)
	target := out.Racks[1].Servers[3]
	ep := bmc.Endpoint{BMM: target.Name, Address: target.BMC.Address, CAFile: out.BMCCAFile,
		Credentials: bmc.CredentialRef{UsernameFile: ref.UsernameFile, PasswordFile: ref.PasswordFile}}
	v, err := aenv.ExecuteActivity(acts.Reimage, bmc.ReimageInput{Endpoint: ep, ImageURL: inv.ImageURL("4.2.0"), Version: "4.2.0"})
	require.NoError(t, err)
	var res bmc.ReimageResult
	require.NoError(t, v.Get(&res))
	require.True(t, res.Reimaged)
	require.Eventually(t, func() bool {
		n, err := cs.CoreV1().Nodes().Get(context.Background(), target.Name, metav1.GetOptions{})
		return err == nil && n.Status.NodeInfo.OSImage == kubesim.OSImage("4.2.0")
	}, 30*time.Second, 100*time.Millisecond, "the node's osImage follows the reimage")
	n, err := cs.CoreV1().Nodes().Get(context.Background(), target.Name, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "4.1.2", n.Labels["rackroll.io/runtime-version"], "a stock kubelet does not relabel its node")
	require.Equal(t, 1, l.ReimageCounts()[target.Name])

	// The kubelet simulator reports Ready a moment after the osImage moves:
	// read the log until the node-ready line is in it.
	var evs []events.Event
	require.Eventually(t, func() bool {
		evs, err = events.ReadFile(evPath)
		return err == nil && slices.ContainsFunc(evs, func(e events.Event) bool { return e.BMM == target.Name && e.Kind == events.NodeReady })
	}, 90*time.Second, 100*time.Millisecond, "node-ready for %s in the event log", target.Name)
	kinds := map[string]bool{}
	for _, e := range evs {
		if e.BMM == target.Name {
			kinds[e.Kind] = true
			require.Equal(t, "rack2", e.Rack)
		}
	}
	for _, k := range []string{events.MediaInsert, events.BootOverride, events.Reset, events.ReimageStart, events.ReimageDone, events.NodeReady} {
		require.True(t, kinds[k], "event %s for %s in %v", k, target.Name, kinds)
	}
	require.False(t, kinds[events.NodeLabel], "no node-label without the relabelling agent")

	// Faults through the admin endpoint, as `starter lab fault` sends them.
	post := func(req FaultRequest) (int, string) {
		b, _ := json.Marshal(req)
		resp, err := http.Post(l.AdminURL+"/faults", "application/json", bytes.NewReader(b))
		require.NoError(t, err)
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, func() string { s, _ := m["error"].(string); return s }()
	}
	code, _ := post(FaultRequest{BMM: "rack1-c1", Kind: "bmc-5xx", Rate: 1})
	require.Equal(t, 200, code)
	resp, err = hc.Get(out.Racks[0].Servers[3].BMC.Address + "/redfish/v1/Systems/System.Embedded.1")
	require.NoError(t, err)
	resp.Body.Close()
	require.GreaterOrEqual(t, resp.StatusCode, 500, "bmc-5xx fault answers 5xx")
	code, msg := post(FaultRequest{BMM: "rack9-c1", Kind: "bmc-5xx"})
	require.Equal(t, 400, code)
	require.Contains(t, msg, `bmm "rack9-c1" is not in this lab`)
	code, msg = post(FaultRequest{BMM: "rack1-c1", Kind: "melts"})
	require.Equal(t, 400, code)
	require.Contains(t, msg, "allowed reimage-fails")
}

// Bad input gets a clear error and leaves nothing running.
func TestLabBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	broken, err := model.LoadInventory("../../examples/broken.yaml")
	require.NoError(t, err)
	_, err = Start(context.Background(), Options{Inventory: broken})
	require.ErrorContains(t, err, "inventory is not valid")

	// A busy admin port: the error says so, and the apiserver it had
	// started is gone again.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	inv, err := model.LoadInventory("../../examples/two-rack.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	_, err = Start(context.Background(), Options{Inventory: inv, Dir: dir, AdminAddr: ln.Addr().String(), Timings: fastTimings()})
	require.ErrorContains(t, err, "is another lab running?")
	require.Eventually(t, func() bool { return len(processesUsing(dir)) == 0 }, 10*time.Second, 100*time.Millisecond,
		"etcd and kube-apiserver of the failed start must be gone: %v", processesUsing(dir))

	t.Setenv("RACKROLL_BIN", t.TempDir())
	_, err = Start(context.Background(), Options{Inventory: inv, Timings: fastTimings()})
	require.ErrorContains(t, err, "run `make tools`")
}

// processesUsing lists pids whose command line mentions dir.
func processesUsing(dir string) []string {
	var out []string
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte(dir)) {
			out = append(out, filepath.Base(filepath.Dir(f)))
		}
	}
	return out
}
