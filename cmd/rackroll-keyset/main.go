// Command rackroll-keyset is what the keyset pod runs on a node
// (docs/keysets-nodes.md#on-the-node): `rackroll-keyset apply --root
// /host` makes the node's rackroll users those of $RACKROLL_NODE_KEYS
// (internal/keyset/nodeapply) and writes the keyset.NodeReport to the
// termination message, which the worker reads from the pod's status. A
// failure is the message instead, with exit code 1: the pod is not
// restarted, the message is the answer.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/nodeapply"
)

// maxMessage is what Kubernetes keeps of a termination message.
const maxMessage = 4096

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

func run(args []string, getenv func(string) string, stderr io.Writer) int {
	fs := flag.NewFlagSet("rackroll-keyset", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", keyset.NodeHostRoot, "where the node's /etc and /home are mounted")
	term := fs.String("termination-log", "/dev/termination-log", "where the report (or the failure) goes: the pod's terminationMessagePath")
	if len(args) == 0 || args[0] != "apply" {
		fmt.Fprintln(stderr, "usage: rackroll-keyset apply [--root DIR] [--termination-log FILE], the users in $"+keyset.NodeKeysEnv)
		return 2
	}
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	msg, err := apply(*root, getenv(keyset.NodeKeysEnv), stderr)
	if err != nil {
		msg = err.Error()
		fmt.Fprintln(stderr, "rackroll-keyset:", msg)
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	if werr := os.WriteFile(*term, []byte(msg), 0o644); werr != nil {
		fmt.Fprintln(stderr, "rackroll-keyset: the termination message:", werr)
		return 1
	}
	if err != nil {
		return 1
	}
	return 0
}

// apply reads the keys and applies them; the report as JSON.
func apply(root, keys string, log io.Writer) (string, error) {
	if strings.TrimSpace(keys) == "" {
		return "", fmt.Errorf("$%s is empty: the pod carries the users as NodeKeys JSON", keyset.NodeKeysEnv)
	}
	dec := json.NewDecoder(strings.NewReader(keys))
	dec.DisallowUnknownFields()
	var want keyset.NodeKeys
	if err := dec.Decode(&want); err != nil {
		return "", fmt.Errorf("$%s is not NodeKeys JSON: %v", keyset.NodeKeysEnv, err)
	}
	a := &nodeapply.Applier{Root: root, Log: func(format string, args ...any) { fmt.Fprintf(log, format+"\n", args...) }}
	rep, err := a.Apply(want)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(rep)
	return string(b), err
}
