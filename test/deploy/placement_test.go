package deploy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

func readYAML(t *testing.T, file string, into any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, file))
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict(b, into), file)
}

// Issue 34: deploy/ keeps the workers where the upgrade does not drain them
// together — management servers by the role label the ledger sets, never
// two in one rack, a PDB that keeps one — and tells the worker which pods
// are its own, so a drain never evicts the last Ready one.
func TestWorkersAreKeptOffWhatIsDrainedTogether(t *testing.T) {
	t.Parallel()
	var d appsv1.Deployment
	readYAML(t, "deployment.yaml", &d)
	var pdb policyv1.PodDisruptionBudget
	readYAML(t, "pdb.yaml", &pdb)
	own := labels.Set(d.Spec.Template.Labels)
	matches := func(what string, s *metav1.LabelSelector) {
		sel, err := metav1.LabelSelectorAsSelector(s)
		require.NoError(t, err, what)
		require.True(t, sel.Matches(own), "%s %s does not select the workers' labels %s", what, sel, own)
	}
	require.GreaterOrEqual(t, *d.Spec.Replicas, int32(2), "one worker to carry on while the other is evicted")

	// The worker's --worker-pods selects its own pods (the default, unless
	// an operator relabels both).
	c := d.Spec.Template.Spec.Containers[0]
	i := slices.IndexFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--worker-pods=") })
	require.GreaterOrEqual(t, i, 0, "args %v", c.Args)
	flag := strings.TrimPrefix(c.Args[i], "--worker-pods=")
	require.Equal(t, kube.DefaultWorkerPods, flag)
	sel, err := labels.Parse(flag)
	require.NoError(t, err)
	require.True(t, sel.Matches(own), "--worker-pods %s does not select the workers' labels %s", flag, own)

	aff := d.Spec.Template.Spec.Affinity
	require.NotNil(t, aff)
	terms := aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	require.Len(t, terms, 1)
	require.Equal(t, []corev1.NodeSelectorRequirement{{Key: model.LabelRole, Operator: corev1.NodeSelectorOpIn,
		Values: []string{string(model.RoleManagement)}}}, terms[0].MatchExpressions, "management servers only")
	anti := aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	require.Len(t, anti, 1)
	require.Equal(t, model.LabelRack, anti[0].TopologyKey, "never two workers in one rack")
	matches("the anti-affinity", anti[0].LabelSelector)

	require.NotNil(t, pdb.Spec.MinAvailable)
	require.Equal(t, 1, pdb.Spec.MinAvailable.IntValue(), "the PDB keeps one")
	matches("the PDB", pdb.Spec.Selector)
	matches("the Deployment", d.Spec.Selector)
}
