package bmc

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// Resolver turns a reference into credentials. EnvFileResolver handles env
// vars and files; a Kubernetes Secret resolver can be added behind the same
// interface.
type Resolver interface {
	Resolve(ctx context.Context, ref CredentialRef) (bmcclient.Credentials, error)
}

// EnvFileResolver reads credentials from environment variables or files
// (e.g. a mounted Secret). Nil funcs default to os.LookupEnv and
// os.ReadFile. A file's trailing newline is dropped.
type EnvFileResolver struct {
	LookupEnv func(string) (string, bool)
	ReadFile  func(string) ([]byte, error)
}

// Resolve returns the credentials; errors name the variable or file, never
// a value.
func (r EnvFileResolver) Resolve(_ context.Context, ref CredentialRef) (bmcclient.Credentials, error) {
	user, err := r.one("username", ref.UsernameEnv, ref.UsernameFile)
	if err != nil {
		return bmcclient.Credentials{}, err
	}
	pass, err := r.one("password", ref.PasswordEnv, ref.PasswordFile)
	if err != nil {
		return bmcclient.Credentials{}, err
	}
	return bmcclient.Credentials{Username: user, Password: pass}, nil
}

func (r EnvFileResolver) one(what, env, file string) (string, error) {
	switch {
	case env != "" && file != "":
		return "", fmt.Errorf("the %s reference names both env %s and file %s; keep one", what, env, file)
	case env != "":
		lookup := r.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
		v, ok := lookup(env)
		if !ok || v == "" {
			return "", fmt.Errorf("the %s env var %s is not set (or empty) in the worker's environment", what, env)
		}
		return v, nil
	case file != "":
		read := r.ReadFile
		if read == nil {
			read = os.ReadFile
		}
		b, err := read(file)
		if err != nil {
			return "", fmt.Errorf("read the %s file %s: %w", what, file, err)
		}
		v := strings.TrimRight(string(b), "\r\n")
		if v == "" {
			return "", fmt.Errorf("the %s file %s is empty", what, file)
		}
		return v, nil
	}
	return "", fmt.Errorf("the credentials reference has no %s: set %sEnv or %sFile", what, what, what)
}
