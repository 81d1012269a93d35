package keyset

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The node contract: what the keyset pod carries to a server's OS and
// what it answers (docs/keysets-nodes.md#why-a-pod). The
// pod is given every OS user rackroll wants on the node, the users of all
// active BMM keysets at once, and makes the node's rackroll users exactly
// those: it adds, changes and removes. So one pod serves a create, an
// update, a delete and an expiry alike, and running it twice changes
// nothing more. The applying activity (activities/kube, ApplyNodeKeys)
// creates the pod; the simulated node (internal/lab/kubesim) plays its
// part in the lab.
const (
	// NodePodLabel marks a keyset pod; its value is the node's name.
	NodePodLabel = "rackroll.io/keyset-apply"
	// NodeKeysEnv is the pod's environment variable holding NodeKeys as
	// JSON. Public keys only: a BMC password never goes to a node.
	NodeKeysEnv = "RACKROLL_NODE_KEYS"
	// NodeNamespace is where keyset pods run: a namespace of their own,
	// labelled privileged for Pod Security Admission (deploy/keysets.yaml),
	// so that no other namespace has to allow a host mount.
	NodeNamespace = "rackroll-keysets"
)

// NodeImageRepository is where a release publishes the keyset pod's
// image (`make image`, hack/image; docs/keysets-nodes.md#the-image),
// tagged with the release's version. The lab's kubelet plays the pod by
// its label, as a stock kubelet runs whatever image a pod names.
const NodeImageRepository = "ghcr.io/rackroll/rackroll-keyset"

// NodeImage is the keyset pod's image of the release version: the one a
// worker of that version names unless its site names its own
// (RACKROLL_KEYSET_IMAGE, activities/kube.KeysetImageFromEnv).
func NodeImage(version string) string { return NodeImageRepository + ":" + version }

// NodePodCommand is the pod's command (cmd/rackroll-keyset); the host's
// directories it writes are mounted under NodeHostRoot.
var NodePodCommand = []string{"/usr/local/bin/rackroll-keyset", "apply", "--root", NodeHostRoot}

// NodeHostRoot is where the pod sees the node's directories, each of
// NodeHostPaths at NodeHostRoot+path.
const NodeHostRoot = "/host"

// NodeHostPaths are the host's directories the keyset pod mounts,
// writable: what the node program writes and nothing more — in /etc the
// account files, their lock and sudoers.d; in /home the homes. Never the
// host's /: a pod that mounts it may write every file of the node, and
// the worker that creates the pod would be root on every node.
var NodeHostPaths = []string{"/etc", "/home"}

// NodeKeys are the OS users rackroll wants on a node, sorted by name.
type NodeKeys struct {
	Users []NodeUser `json:"users"`
}

// NodeUser is one of them: its keyset, its privilege and its
// authorized_keys line.
type NodeUser struct {
	Name      string    `json:"name"`
	Keyset    string    `json:"keyset"`
	Privilege Privilege `json:"privilege"`
	Key       string    `json:"key"`
}

// NodeReport is the pod's answer, its termination message: how many
// rackroll users the node has once the pod is done and a digest of them
// (Digest). Kubernetes keeps 4 KiB of a termination message, a hundred
// users' fingerprints do not fit; a digest does, and says yes or no.
type NodeReport struct {
	Users  int    `json:"users"`
	Digest string `json:"digest"`
}

// ForNodes is what every node should have at now: the users of the BMM
// keysets not expired, sorted by name. Members are unique per kind
// (CheckCreate), so a user comes from one keyset.
func ForNodes(list []Keyset, now time.Time) NodeKeys {
	out := NodeKeys{Users: []NodeUser{}}
	for _, k := range list {
		if k.Kind != KindBMM || k.Expired(now) {
			continue
		}
		for _, u := range k.Users {
			out.Users = append(out.Users, NodeUser{Name: u.Name, Keyset: k.Name, Privilege: k.PrivilegeLevel, Key: u.SSHPublicKey})
		}
	}
	slices.SortFunc(out.Users, func(a, b NodeUser) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Fingerprinted is one user as a node holds it, its key by fingerprint.
type Fingerprinted struct {
	Name        string    `json:"name"`
	Keyset      string    `json:"keyset"`
	Privilege   Privilege `json:"privilege"`
	Fingerprint string    `json:"fingerprint"`
}

// Fingerprints reads each user's key; a key that does not parse is an
// error naming the user (the pod refuses the whole set: a node never gets
// half of it).
func (k NodeKeys) Fingerprints() ([]Fingerprinted, error) {
	out := make([]Fingerprinted, 0, len(k.Users))
	for _, u := range k.Users {
		pk, err := ParsePublicKey(u.Key)
		if err != nil {
			return nil, fmt.Errorf("user %s (keyset %s): %w", u.Name, u.Keyset, err)
		}
		out = append(out, Fingerprinted{Name: u.Name, Keyset: u.Keyset, Privilege: u.Privilege, Fingerprint: pk.Fingerprint})
	}
	return out, nil
}

// Report is the NodeReport of users as a node holds them: their count and
// the SHA-256 of one line per user ("name keyset privilege fingerprint"),
// in name order.
func Report(users []Fingerprinted) NodeReport {
	sorted := slices.Clone(users)
	slices.SortFunc(sorted, func(a, b Fingerprinted) int { return strings.Compare(a.Name, b.Name) })
	h := sha256.New()
	for _, u := range sorted {
		fmt.Fprintf(h, "%s %s %s %s\n", u.Name, u.Keyset, u.Privilege, u.Fingerprint)
	}
	return NodeReport{Users: len(sorted), Digest: "sha256:" + base64.RawStdEncoding.EncodeToString(h.Sum(nil))}
}

// Wanted is the NodeReport of a node holding ForNodes(list, now), from
// the fingerprints the ledger derived: a redacted list (what a workflow
// reads) will do, no key is needed.
func Wanted(list []Keyset, now time.Time) NodeReport {
	users := []Fingerprinted{}
	for _, k := range list {
		if k.Kind != KindBMM || k.Expired(now) {
			continue
		}
		for _, u := range k.Users {
			users = append(users, Fingerprinted{Name: u.Name, Keyset: k.Name, Privilege: k.PrivilegeLevel, Fingerprint: u.Fingerprint})
		}
	}
	return Report(users)
}

// CheckReport says whether a node's answer shows exactly want.
func CheckReport(want NodeKeys, got NodeReport) error {
	users, err := want.Fingerprints()
	if err != nil {
		return err
	}
	if exp := Report(users); exp != got {
		return fmt.Errorf("the node holds %d rackroll users (digest %s), want %d (digest %s)", got.Users, got.Digest, exp.Users, exp.Digest)
	}
	return nil
}
