package model

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// NodeVersionSource says where a site's nodes show the runtime version
// they booted: a node label (default LabelRuntimeVersion) or the one
// capture group of a regular expression over status.nodeInfo.osImage
// (inventory kubernetes.versionLabel / kubernetes.osImagePattern). The zero
// value reads the default label. Workflows carry it from the ledger to the
// Kubernetes activities in their inputs (see Read).
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
	if s.OSImagePattern != "" {
		return fmt.Sprintf("osImage pattern %q", s.OSImagePattern)
	}
	return "label " + s.label()
}

func (s NodeVersionSource) label() string {
	if s.Label != "" {
		return s.Label
	}
	return LabelRuntimeVersion
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

// Read is the version a node shows through s: its label, or the pattern's
// capture group over osImage ("" when the label is absent or the pattern
// does not match). A bad pattern is an error (inputs are validated before
// they reach here, so this only guards hand-made ones).
func (s NodeVersionSource) Read(labels map[string]string, osImage string) (string, error) {
	if s.OSImagePattern == "" {
		return labels[s.label()], nil
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
