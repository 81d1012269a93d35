package lab

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rackroll/rackroll/internal/model"
)

// credential is what one named credential reference means in the lab: a
// made-up username and password, and the files holding them that the
// out-inventory references instead.
type credential struct {
	username, password string
	userFile, file     string
}

type credentials map[string]credential

// makeCredentials makes up a password for each named reference of the
// inventory and writes it under dir. It never resolves the references: the
// lab's BMCs are simulated, a real site's secrets have no business there,
// and a BMC_PASSWORD in the caller's environment must not change which
// password the BMCs accept, so `lab up` (and every test that starts a lab)
// behaves the same in any shell.
func makeCredentials(inv *model.Inventory, dir string) (credentials, error) {
	out := credentials{}
	credDir := filepath.Join(dir, "credentials")
	if err := os.MkdirAll(credDir, 0o700); err != nil {
		return nil, err
	}
	for n := range inv.BMCCredentials {
		c := credential{username: "root", password: randomSecret(),
			userFile: filepath.Join(credDir, n+".username"), file: filepath.Join(credDir, n+".password")}
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

func randomSecret() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}
