package lab

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

type credential struct {
	username, password string
	// generated is true when the lab made the credential up because the
	// inventory's reference did not resolve here; the out-inventory then
	// points at files the lab wrote instead.
	generated      bool
	userFile, file string
}

type credentials map[string]credential

// resolveCredentials resolves each named reference the way the activities
// will (env or file). A reference that does not resolve on this machine gets
// a generated password written to files under dir, so `lab up` works from a
// fresh clone without anyone exporting secrets.
func resolveCredentials(inv *model.Inventory, dir string) (credentials, error) {
	out := credentials{}
	names := make([]string, 0, len(inv.BMCCredentials))
	for n := range inv.BMCCredentials {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ref := inv.BMCCredentials[n]
		u, p, ok := lookup(ref)
		if ok {
			out[n] = credential{username: u, password: p}
			continue
		}
		c := credential{username: "root", password: randomSecret(), generated: true}
		credDir := filepath.Join(dir, "credentials")
		if err := os.MkdirAll(credDir, 0o700); err != nil {
			return nil, err
		}
		c.userFile = filepath.Join(credDir, n+".username")
		c.file = filepath.Join(credDir, n+".password")
		if err := os.WriteFile(c.userFile, []byte(c.username+"\n"), 0o600); err != nil {
			return nil, err
		}
		if err := os.WriteFile(c.file, []byte(c.password+"\n"), 0o600); err != nil {
			return nil, err
		}
		out[n] = c
	}
	return out, nil
}

func lookup(ref model.CredentialRef) (user, pass string, ok bool) {
	read := func(env, file string) (string, bool) {
		if env != "" {
			v, ok := os.LookupEnv(env)
			return v, ok && v != ""
		}
		if file != "" {
			b, err := os.ReadFile(file)
			if err != nil {
				return "", false
			}
			return strings.TrimSpace(string(b)), true
		}
		return "", false
	}
	user, ok1 := read(ref.UsernameEnv, ref.UsernameFile)
	pass, ok2 := read(ref.PasswordEnv, ref.PasswordFile)
	return user, pass, ok1 && ok2
}

func randomSecret() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}
