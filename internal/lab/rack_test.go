package lab

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A rack delivered but not racked: no BMC answers, no Node, not in the
// out-inventory. Racked on the operator's word, its BMC answers with the
// profile the inventory names, the machine boots the runtime the installer
// wrote and its kubelet registers a Ready Node as management or compute;
// no etcd member starts. Bad names are refused before anything is racked.
func TestRackALaterRack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	inv := threeRacks(t)
	put(t, inv, Section{Lab: &Spec{Unracked: []string{"rack3"}, BMCProfiles: map[string]string{"rack3": "ilo5"}}})
	dir := t.TempDir()
	l, err := Start(context.Background(), Options{Inventory: inv, Dir: filepath.Join(dir, "lab"), NoWorkloads: true, Timings: fastTimings()})
	require.NoError(t, err)
	defer l.Stop()
	ctx := context.Background()
	kc := l.Kube.Client()
	members := l.Kube.Etcd().Running()

	for _, st := range l.Status() {
		if st.Rack == "rack3" {
			require.True(t, st.Unracked, st.Name)
			require.Empty(t, st.BMC, "no BMC answers for %s", st.Name)
			require.Equal(t, "Off", st.Power, st.Name)
			_, err := kc.CoreV1().Nodes().Get(ctx, st.Name, metav1.GetOptions{})
			require.True(t, apierrors.IsNotFound(err), "no Node for %s: %v", st.Name, err)
		}
	}
	outPath := filepath.Join(dir, "lab.yaml")
	require.NoError(t, l.WriteOutInventory(outPath))
	out, err := model.LoadValid(outPath, Validate)
	require.NoError(t, err, "the out-inventory before the rack is racked passes the lab's checks")
	require.Len(t, out.Racks, 2)

	_, err = l.Rack("rack9")
	require.ErrorContains(t, err, `rack "rack9": no rack or BMM of this lab has that name; not racked yet are rack3-mgmt1, rack3-mgmt2, rack3-c1`)
	_, err = l.Rack("rack1")
	require.ErrorContains(t, err, "rack rack1: already racked")
	_, err = l.Rack("rack3", "nope")
	require.ErrorContains(t, err, `rack "nope"`)
	require.True(t, l.isUnracked("rack3-mgmt1"), "a refused request racks nothing")

	res, err := l.Rack("rack3")
	require.NoError(t, err)
	require.Len(t, res.Racked, 3)
	for _, s := range res.Racked {
		require.True(t, strings.HasPrefix(s.BMC, "https://127.0.0.1:"), s.BMC)
		require.Equal(t, "ilo5", s.Profile)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range []string{"rack3-mgmt1", "rack3-mgmt2", "rack3-c1"} {
		var n *corev1.Node
		for time.Now().Before(deadline) {
			n, err = kc.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err == nil && ready(n) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		require.NoError(t, err, name)
		require.True(t, ready(n), "%s Ready", name)
		require.Equal(t, "rack3", n.Labels[model.LabelRack])
		want := "management"
		if name == "rack3-c1" {
			want = "compute"
		} else {
			require.NotEmpty(t, n.Labels[model.LabelManagementGroup], name)
		}
		require.Equal(t, want, n.Labels[model.LabelRole], name)
		require.Equal(t, "rackroll 4.1.2 (lab)", n.Status.NodeInfo.OSImage)
	}
	require.Equal(t, members, l.Kube.Etcd().Running(), "racking changes no etcd member")

	// Its BMC answers as the profile says, verified against the lab's CA.
	m := l.Machine("rack3-mgmt1")
	ref := out.BMCCredentials["default"]
	user, _ := os.ReadFile(ref.UsernameFile)
	pass, _ := os.ReadFile(ref.PasswordFile)
	req, _ := http.NewRequest(http.MethodGet, m.URL+m.BMC.SystemPath(), nil)
	req.SetBasicAuth(strings.TrimSpace(string(user)), strings.TrimSpace(string(pass)))
	resp, err := redfishtest.TrustingOnly(t, l.BMCCAFile).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var sys map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&sys))
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "On", sys["PowerState"])
	prof, _ := redfish.LookupProfile("ilo5")
	require.Equal(t, prof.Manufacturer, sys["Manufacturer"])

	require.NoError(t, l.WriteOutInventory(outPath))
	grown, err := model.LoadValid(outPath, Validate)
	require.NoError(t, err)
	require.Len(t, grown.Racks, 3)
	require.Equal(t, m.URL, grown.Racks[2].Servers[0].BMC.Address)
	_, err = l.Rack("rack3")
	require.ErrorContains(t, err, "already racked; not racked yet are none")

	var racked []string
	for _, e := range l.Events.Events() {
		if e.Kind == events.Racked {
			racked = append(racked, e.BMM)
		}
	}
	require.Equal(t, []string{"rack3-mgmt1", "rack3-mgmt2", "rack3-c1"}, racked)
}

func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
