//go:build linux

package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/testkit/ports"
)

// Cluster is a throwaway PostgreSQL: its directory, its postmaster, its port.
type Cluster struct {
	dir  string
	port int
	cmd  *exec.Cmd
	logf *os.File
	// exited is closed when the postmaster has exited, with exitErr set.
	exited  chan struct{}
	exitErr error

	stopOnce sync.Once
	stopErr  error
}

// errNoBin is FindBin's answer when no PostgreSQL binaries are found.
var errNoBin = errors.New("no initdb and postgres on PATH nor in /usr/lib/postgresql/*/bin")

// FindBin returns the directory holding initdb and postgres: PATH first,
// then the highest version under /usr/lib/postgresql.
func FindBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil {
			dir := filepath.Dir(p)
			if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
				return dir, nil
			}
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(matches, func(i, j int) bool { return version(matches[i]) > version(matches[j]) })
	for _, m := range matches {
		dir := filepath.Dir(m)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	return "", errNoBin
}

// version is the major version in /usr/lib/postgresql/<v>/bin/initdb.
func version(p string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(filepath.Dir(p))), 64)
	return v
}

// credential is who runs initdb and postgres: nil for the current user,
// or "nobody" (ORDO_TEST_POSTGRES_USER) when running as root.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	name := os.Getenv("ORDO_TEST_POSTGRES_USER")
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: running as root, and user %s for PostgreSQL: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("pgcluster: user %s: uid %q gid %q", name, u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// New runs initdb and starts postgres, waiting until it answers. A
// durable cluster runs with fsync, synchronous_commit and full_page_writes
// on, as a production server does: the benchmarks measure it. One that is
// not turns the three off: a test's cluster, whose data need survive a
// killed process (the page cache keeps it) but never a machine crash; its
// commits then cost no disk flush.
func New(bin string, durable bool) (_ *Cluster, err error) {
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ordo-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("pgcluster: chown %s: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgcluster: initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	c := &Cluster{dir: dir, port: port, logf: logf}
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "port="+strconv.Itoa(port),
		"-c", "unix_socket_directories="+dir,
		"-c", "fsync="+onOff(durable),
		"-c", "synchronous_commit="+onOff(durable),
		"-c", "full_page_writes="+onOff(durable),
		"-c", "max_connections=400",
		"-c", "shared_buffers=64MB",
		"-c", "log_min_messages=warning")
	c.cmd.Dir = dir
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("pgcluster: start postgres: %w", err)
	}
	c.exited = make(chan struct{})
	go func() {
		c.exitErr = c.cmd.Wait()
		close(c.exited)
	}()
	if err := c.waitReady(); err != nil {
		_ = c.cmd.Process.Kill()
		<-c.exited
		_ = logf.Close()
		log, _ := os.ReadFile(logf.Name())
		return nil, fmt.Errorf("%w\n%s", err, bytes.TrimSpace(log))
	}
	return c, nil
}

// waitReady polls the server until it accepts a connection, it exits, or
// 60s pass.
func (c *Cluster) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wall clock.Real
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres").String())
		if err == nil {
			return conn.Close(ctx)
		}
		t := wall.NewTimer(20 * time.Millisecond)
		select {
		case <-c.exited:
			t.Stop()
			return fmt.Errorf("pgcluster: postgres exited: %w", c.exitErr)
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("pgcluster: postgres not ready after 60s: %w", err)
		case <-t.C():
		}
	}
}

// URL is the URL of a database of the cluster.
func (c *Cluster) URL(db string) *url.URL {
	return &url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
}

// Stop asks postgres for a fast shutdown, waits for it (at most 30s, then
// kills it) and removes the directory.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		pid := c.cmd.Process.Pid
		_ = syscall.Kill(pid, syscall.SIGINT)
		var wall clock.Real
		t := wall.NewTimer(30 * time.Second)
		select {
		case <-c.exited:
			t.Stop()
		case <-t.C():
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-c.exited
			c.stopErr = fmt.Errorf("pgcluster: postgres did not stop within 30s: killed")
		}
		_ = c.logf.Close()
		if err := os.RemoveAll(c.dir); err != nil {
			c.stopErr = errors.Join(c.stopErr, err)
		}
	})
	return c.stopErr
}

// onOff is a boolean setting's value.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// freePort returns a free loopback port below the kernel's ephemeral range
// (internal/testkit/ports): the server binds it only later, and a port the
// kernel handed out for port 0 may meanwhile become some connection's
// source port.
func freePort() (int, error) {
	p, err := ports.Consecutive(1)
	if err != nil {
		return 0, fmt.Errorf("pgcluster: free port: %w", err)
	}
	return p, nil
}

// StopOnSignal stops the cluster cluster returns (nil: none) on SIGINT or
// SIGTERM, then exits.
func StopOnSignal(cluster func() *Cluster) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-ch
		if c := cluster(); c != nil {
			_ = c.Stop()
		}
		fmt.Fprintf(os.Stderr, "pgcluster: %v: cluster stopped\n", sig)
		os.Exit(2)
	}()
}
