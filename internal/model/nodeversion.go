package model

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// NodeVersionSource says where a site's nodes show the runtime version
// they booted: status.nodeInfo.osImage (the zero value: its first
// major.minor.patch), the one capture group of a regular expression over
// osImage (inventory kubernetes.osImagePattern), or a node label
// (kubernetes.versionLabel). Workflows carry it from the ledger to the
// Kubernetes activities in their inputs (see Read).
//
// osImage is the default because a stock kubelet keeps it true: it is
// PRETTY_NAME of the booted image's /etc/os-release, posted on every status
// sync. A label set by the kubelet's --node-labels is applied only when the
// kubelet registers a Node that does not exist yet, so a node reimaged under
// the same name keeps the label of its first install (Kubernetes docs,
// "Self-registration of Nodes"; kubernetes/kubernetes#59314, #109569,
// #122035): reading a label needs an agent on the node that keeps it current.
type NodeVersionSource struct {
	Label          string `json:"label,omitempty"`
	OSImagePattern string `json:"osImagePattern,omitempty"`
}

// NodeVersion is the site's version source as the inventory sets it.
func (k KubernetesSpec) NodeVersion() NodeVersionSource {
	return NodeVersionSource{Label: k.VersionLabel, OSImagePattern: k.OSImagePattern}
}

// String says where the version is read, for messages.
func (s NodeVersionSource) String() string {
	switch {
	case s.Label != "":
		return "label " + s.Label
	case s.OSImagePattern != "":
		return fmt.Sprintf("osImage pattern %q", s.OSImagePattern)
	}
	return "osImage (its first major.minor.patch, the default)"
}

// compile checks the pattern: it must compile and have exactly one
// capture group, the version.
func (s NodeVersionSource) compile() (*regexp.Regexp, error) {
	re, err := regexp.Compile(s.OSImagePattern)
	if err != nil {
		return nil, fmt.Errorf("not a regular expression (Go RE2 syntax): %v", err)
	}
	if n := re.NumSubexp(); n != 1 {
		return nil, fmt.Errorf("has %d capture groups, want exactly one: the version, e.g. ^rackroll ([0-9.]+)", n)
	}
	return re, nil
}

// validate reports a bad label key or pattern, or both set, naming the
// fields as the input spells them.
func (s NodeVersionSource) validate(e *ValidationError, labelField, patternField string) {
	if s.Label != "" && !isLabelKey(s.Label) {
		e.Add(labelField, s.Label, "must be a Kubernetes label key ([prefix/]name), e.g. "+LabelRuntimeVersion)
	}
	if s.OSImagePattern == "" {
		return
	}
	if s.Label != "" {
		e.Add(patternField, s.OSImagePattern, "set "+labelField+" or "+patternField+", not both")
	}
	if _, err := s.compile(); err != nil {
		e.Add(patternField, s.OSImagePattern, err.Error())
	}
}

// Validate reports a bad source as a *ValidationError (nil when fine).
func (s NodeVersionSource) Validate() error {
	var e ValidationError
	s.validate(&e, "label", "osImagePattern")
	return e.Err()
}

var labelName = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)

// isLabelKey: an optional DNS-subdomain prefix and "/", then a name of at
// most 63 characters.
func isLabelKey(k string) bool {
	prefix, name, ok := strings.Cut(k, "/")
	if !ok {
		prefix, name = "", k
	} else if !isDNSSubdomain(prefix) {
		return false
	}
	return labelName.MatchString(name)
}

// compiled caches patterns: a poll reads a node every few seconds.
var compiled sync.Map // pattern -> *regexp.Regexp

// Read is the version a node shows through s: its label, the pattern's
// capture group over osImage, or by default the first major.minor.patch
// in osImage ("" when the label is absent or nothing matches). A bad
// pattern is an error (inputs are validated before they reach here, so
// this only guards hand-made ones).
func (s NodeVersionSource) Read(labels map[string]string, osImage string) (string, error) {
	switch {
	case s.Label != "":
		return labels[s.Label], nil
	case s.OSImagePattern == "":
		return firstVersion(osImage), nil
	}
	var re *regexp.Regexp
	if v, ok := compiled.Load(s.OSImagePattern); ok {
		re = v.(*regexp.Regexp)
	} else {
		var err error
		if re, err = s.compile(); err != nil {
			return "", fmt.Errorf("osImagePattern %q %v", s.OSImagePattern, err)
		}
		compiled.Store(s.OSImagePattern, re)
	}
	m := re.FindStringSubmatch(osImage)
	if m == nil {
		return "", nil
	}
	return m[1], nil
}

// firstVersion is the first run of digits and dots in osImage that is a
// version ParseVersion accepts: "rackroll 4.2.0 (lab)" and "Talos (v1.7.0)"
// give 4.2.0 and 1.7.0; "Ubuntu 22.04.4 LTS" (a leading zero) and
// "Debian GNU/Linux 12 (bookworm)" give "" — such an image needs its own
// osImagePattern, and the upgrade's preflight says so (Unseen).
func firstVersion(osImage string) string {
	for _, run := range strings.FieldsFunc(osImage, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }) {
		run = strings.Trim(run, ".")
		if _, err := ParseVersion(run); err == nil {
			return run
		}
	}
	return ""
}

// NodeShown is what one existing node showed through a version source,
// beside the version the ledger records for its machine.
type NodeShown struct {
	Node     string
	Shows    string // read through the source; "" when nothing was
	Recorded string // the ledger's version of its machine
	OSImage  string
	// Labelled is the node's LabelRuntimeVersion, if any: a hint for the
	// operator, never read unless the source is that label.
	Labelled string
}

// maxUnseen bounds the nodes a refusal names; the rest are counted.
const maxUnseen = 5

// Unseen is the upgrade preflight's verdict on the site's version source
// ("" when it can be trusted): a node that shows no major.minor.patch
// through it could never be seen back on the target, so each of its
// reimages would wait out its whole limit and fail; and when not one node
// shows the version the ledger records for it (nor target), the source
// reads something else than the runtime. The refusal names the nodes and
// what to set.
func (s NodeVersionSource) Unseen(nodes []NodeShown, target string) string {
	var blind, other []string
	agrees := false
	for _, n := range nodes {
		switch {
		case n.Shows == "" || !validVersion(n.Shows):
			blind = append(blind, n.describe(s))
		case n.Shows == n.Recorded || n.Shows == target:
			agrees = true // the source reads the runtime: other nodes differ for real
		default:
			other = append(other, n.describe(s))
		}
	}
	var why string
	switch {
	case len(blind) > 0:
		why = fmt.Sprintf("%d of %d nodes show no runtime version through %s: %s, so rackroll could never see one back from its reimage",
			len(blind), len(nodes), s, listSome(blind))
	case !agrees && len(other) > 0:
		why = fmt.Sprintf("no node shows through %s the version the ledger records for it (or %s): %s, so the source reads something else than the runtime",
			s, target, listSome(other))
	default:
		return ""
	}
	return why + ". Set kubernetes.osImagePattern (a regular expression over osImage with one capture group, the version) or, " +
		"if an agent on every node keeps a label current, kubernetes.versionLabel, and register the cluster again (docs/production.md#image-contract)"
}

func (n NodeShown) describe(s NodeVersionSource) string {
	shows := "none"
	if n.Shows != "" {
		shows = n.Shows
	}
	out := fmt.Sprintf("%s shows %s (ledger %s, osImage %q", n.Node, shows, n.Recorded, n.OSImage)
	if n.Labelled != "" && s.Label != LabelRuntimeVersion {
		// A stock kubelet set it at the node's first registration only.
		out += fmt.Sprintf(", label %s=%s", LabelRuntimeVersion, n.Labelled)
	}
	return out + ")"
}

func validVersion(v string) bool {
	_, err := ParseVersion(v)
	return err == nil
}

func listSome(items []string) string {
	if len(items) <= maxUnseen {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:maxUnseen], "; "), len(items)-maxUnseen)
}
