package archtest

import (
	"sort"
	"strings"

	registered "github.com/rackroll/rackroll/workflows"
)

// Layers. docs/design.md#layers-and-what-each-may-import describes them in
// words; a change here goes there too.
const (
	domain     = "domain"     // pure decisions: no Temporal, no I/O
	contract   = "contract"   // what workflows, activities and the CLI exchange
	support    = "support"    // infrastructure helpers (Temporal connection, codec, metrics, …)
	activities = "activities" // I/O adapters: BMC, Kubernetes, etcd, the ledger
	workflows  = "workflows"  // orchestration
	wiring     = "wiring"     // the worker: registers workflows and activities
	cli        = "cli"        // starter
	lab        = "lab"        // the simulated site
	labcheck   = "labcheck"   // the safety rules checked on a lab's event log
	node       = "node"       // the program the keyset pod runs on a node
	harness    = "harness"    // test set-up shared by tests: never imported by non-test code
	tests      = "tests"      // end-to-end suites under test/
	tools      = "tools"      // hack/, the module root, this package
)

// layerOf maps a package path (relative to the module, "." for its root)
// to its layer; the longest matching prefix wins, so a harness package
// inside a production tree (internal/model/modeltest) is harness.
var layerOf = map[string]string{
	"internal/model":       domain,
	"internal/placement":   domain,
	"internal/lease":       domain,
	"internal/cpgate":      domain,
	"internal/upgradeplan": domain,
	"internal/remediate":   domain,
	"internal/etcdquorum":  domain,
	"internal/capacity":    domain,
	"internal/workerguard": domain,
	"internal/firmware":    domain,
	"internal/keyset":      domain,
	"internal/selfupgrade": domain,
	"internal/fleet":       domain,

	"internal/api":        contract,
	"internal/breakglass": contract,

	"internal/temporalerr":  support,
	"internal/metrics":      support,
	"internal/logging":      support,
	"internal/output":       support,
	"internal/version":      support,
	"internal/codec":        support,
	"internal/temporalconn": support,
	"internal/sitecheck":    support,
	"internal/toolbin":      support,
	"internal/devserver":    support,

	"activities": activities,
	"workflows":  workflows,
	"worker":     wiring,
	"starter":    cli,

	"internal/lab":        lab,
	"internal/invariants": labcheck,

	"cmd/rackroll-keyset":       node,
	"internal/keyset/nodeapply": node,

	"test/e2e":                         harness,
	"internal/temporalcluster":         harness,
	"workflows/internal/wftest":        harness,
	"internal/model/modeltest":         harness,
	"internal/lab/kubeapi/kubeapitest": harness,
	"internal/lab/redfish/redfishtest": harness,
	"internal/keyset/keysettest":       harness,
	"test":                             tests,
	"hack":                             tools,
	".":                                tools,
	"internal/archtest":                tools,
}

// mayImport lists, per layer, the layers its non-test files may import.
// A layer may import itself unless the entry says otherwise
// (activities: one activity package never imports another).
var mayImport = map[string][]string{
	domain:     {domain},
	contract:   {domain, contract},
	support:    {domain, contract, support},
	activities: {domain, contract, support},
	workflows:  {domain, contract, support, activities, workflows},
	wiring:     {domain, contract, support, activities, workflows, wiring},
	cli:        {domain, contract, support, activities},
	lab:        {domain, support, lab},
	labcheck:   {domain, contract, lab, labcheck},
	node:       {domain, node},
	harness:    {domain, contract, support, activities, workflows, wiring, lab, labcheck, node, harness},
	tests:      {domain, contract, support, activities, workflows, wiring, lab, labcheck, harness, node, tests},
	tools:      {domain, contract, support, activities, workflows, wiring, lab, labcheck, harness, node, tools},
}

// labTag is the build tag of the CLI's lab commands (starter/lab_build.go):
// `make build`, the Dockerfile's lab target and the tests' binaries set it;
// the production starter (`go build ./starter`, the image's default target)
// does not, so it links no lab.
const labTag = "lab"

// labBuild is what a build with labTag lets a layer import beyond
// mayImport: the CLI's lab commands run the lab and its checker. Nothing
// else may use the tag to reach the lab.
var labBuild = map[string][]string{cli: {lab, labcheck}}

// Workflow families: inside the workflows layer, each package that holds
// registered workflows (workflows.Families, read from the registration
// list) is a family of its own, and may import only the kernel
// (docs/design.md#layers-and-what-each-may-import): the kernel imports no
// family, and only the root (Register) imports the families. A package
// below a family's belongs to it (workflows/cluster/sub is cluster's);
// workflows/upgrade/server is a family of its own, so the upgrade parent
// and its server child, separate runs with separate change-ID lists,
// never import each other. A package's tests may import more
// (workflows/internal/wftest is harness, and the root's tests span
// families).
const kernelFamily = "workflows/kernel"

var familyImports = familiesOf(registered.Families())

// familiesOf builds familyImports from the families' import paths.
func familiesOf(families map[string][]string) map[string][]string {
	out := map[string][]string{"workflows": {kernelFamily}, kernelFamily: {}}
	for pkg := range families {
		rel := pkg[strings.Index(pkg, "/workflows")+1:]
		out["workflows"] = append(out["workflows"], rel)
		out[rel] = []string{kernelFamily}
	}
	sort.Strings(out["workflows"])
	return out
}

// family is the workflow family of rel (a workflows-layer package), or ""
// when it is in none: the longest entry of familyImports that is rel or a
// parent of it ("workflows" covers only itself).
func family(rel string) string {
	best := ""
	for f := range familyImports {
		if (rel == f || f != "workflows" && strings.HasPrefix(rel, f+"/")) && len(f) > len(best) {
			best = f
		}
	}
	return best
}

// pure layers know nothing of Temporal or of the outside world: none of
// their non-test files imports a path with one of these prefixes.
var pure = map[string]bool{domain: true, contract: true}

var ioPrefixes = []string{
	"go.temporal.io/",
	"k8s.io/client-go",
	"k8s.io/kubectl",
	"github.com/stmcginnis/gofish",
	"go.etcd.io/",
	"google.golang.org/grpc",
	"net/http",
	"os/exec",
}

// layer is rel's layer, or "" when no entry covers it.
func layer(rel string) string {
	best, found := -1, ""
	for prefix, l := range layerOf {
		if (rel == prefix || prefix == "." && rel == "." || strings.HasPrefix(rel, prefix+"/")) && len(prefix) > best {
			best, found = len(prefix), l
		}
	}
	return found
}

// onlyIn: an external import only one package of the module may make.
// The BMC client's interface (activities/bmc/bmcclient) and the
// activities speak Redfish through it; gofish, its one implementation,
// stays behind it, as metal3 keeps each provisioner behind its interface.
var onlyIn = map[string]string{"github.com/stmcginnis/gofish": "activities/bmc/gofishclient"}
