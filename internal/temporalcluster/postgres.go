package temporalcluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rackroll/rackroll/internal/devserver"
)

// Postgres is a PostgreSQL server of its own: a fresh data directory in a
// temp dir, listening on one loopback port, owned by an unprivileged user
// when the caller is root (PostgreSQL refuses to run as root).
type Postgres struct {
	Addr string // 127.0.0.1:port
	Port int
	// Password of User, made up for this run and kept out of the logs.
	Password string
	proc     *Process
	cred     *syscall.Credential
	bin      string
}

// User is the database role the Temporal services use, as in
// docker-compose.yml. Its password is made up for each run.
const User = "temporal"

// postgresBin finds the directory of initdb and postgres: Debian keeps
// them in /usr/lib/postgresql/<major>/bin (the newest wins), other systems
// on PATH.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL's server binaries (initdb, postgres) are missing: run `make postgres` (installs the Debian package postgresql)")
}

func major(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// unprivileged is the credential PostgreSQL runs with: nobody when the
// caller is root, the caller otherwise (nil).
func unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// startPostgres initialises a data directory under dir (which it hands to
// the unprivileged user) and runs postgres on a free loopback port until
// it accepts connections. Durability is traded for speed (fsync off): the
// data lives only as long as the test.
func startPostgres(ctx context.Context, dir string) (*Postgres, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	cred, err := unprivileged()
	if err != nil {
		return nil, err
	}
	pgDir := filepath.Join(dir, "postgres")
	if err := os.MkdirAll(pgDir, 0o700); err != nil {
		return nil, err
	}
	pw := make([]byte, 16)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	password := hex.EncodeToString(pw)
	pwFile := filepath.Join(pgDir, "pw")
	if err := os.WriteFile(pwFile, []byte(password+"\n"), 0o600); err != nil {
		return nil, err
	}
	if cred != nil {
		// The user must reach its data directory: dir itself is the
		// caller's, traversable but not writable.
		if err := os.Chmod(dir, 0o711); err != nil {
			return nil, err
		}
		if err := chownAll(pgDir, cred); err != nil {
			return nil, err
		}
	}
	p := &Postgres{Password: password, cred: cred, bin: bin}
	data := filepath.Join(pgDir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", User, "--pwfile", pwFile,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := p.run(initdb); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if p.Port, err = devserver.FreePort(); err != nil {
		return nil, err
	}
	p.Addr = fmt.Sprintf("127.0.0.1:%d", p.Port)
	// Four Temporal services with two stores each, and the schema tool.
	p.proc = NewProcess("postgres", filepath.Join(dir, "postgres.log"), cred, filepath.Join(bin, "postgres"),
		"-D", data, "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-k", pgDir,
		"-c", "max_connections=300", "-c", "shared_buffers=64MB",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	if err := p.proc.Start(); err != nil {
		return nil, err
	}
	err = p.proc.waitFor(ctx, 60*time.Second, func() error {
		out, err := p.run(exec.CommandContext(ctx, filepath.Join(bin, "pg_isready"), "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-U", User))
		if err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		return nil
	})
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("postgres on %s: %w", p.Addr, err)
	}
	return p, nil
}

// run runs a PostgreSQL tool as the server's user.
func (p *Postgres) run(cmd *exec.Cmd) ([]byte, error) {
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	return cmd.CombinedOutput()
}

// Stop shuts PostgreSQL down (SIGINT: fast shutdown).
func (p *Postgres) Stop() {
	if p.proc != nil {
		p.proc.Stop(syscall.SIGINT)
	}
}

func chownAll(root string, cred *syscall.Credential) error {
	return filepath.Walk(root, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(cred.Uid), int(cred.Gid))
	})
}

// Query runs one SQL statement with psql against database db and returns
// its rows, one line each, fields separated by "|".
func (p *Postgres) Query(ctx context.Context, db, sql string) ([]string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(p.bin, "psql"), "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port),
		"-U", User, "-d", db, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql)
	cmd.Env = []string{"LC_ALL=C", "PGPASSWORD=" + p.Password}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("psql %q: %w\n%s", sql, err, out)
	}
	return strings.Fields(string(out)), nil
}

// tempBase is where the cluster's directory goes: the system temp dir,
// unless PostgreSQL's unprivileged user could not reach into it (a TMPDIR
// under /root, say); then /tmp.
func tempBase() string {
	d := os.TempDir()
	if cred, err := unprivileged(); err != nil || cred == nil {
		return d
	}
	for p := d; ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o001 == 0 {
			return "/tmp"
		}
		if filepath.Dir(p) == p {
			return d
		}
	}
}

// Pid is the postmaster's process id (its backends are its children), 0
// when stopped.
func (p *Postgres) Pid() int {
	if p.proc == nil {
		return 0
	}
	return p.proc.Pid()
}
