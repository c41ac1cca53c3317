//go:build linux

package main

// The throwaway cluster, after ordo's internal/testkit/pgtest (which cannot
// be imported here: it is test code, on package testing).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is a throwaway PostgreSQL: its directory, its postmaster, its port.
type cluster struct {
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

// errNoBin: no PostgreSQL binaries found.
var errNoBin = errors.New("no initdb and postgres on PATH nor in /usr/lib/postgresql/*/bin: install PostgreSQL or pass --postgres URL")

// findBin returns the directory holding initdb and postgres: PATH first,
// then the highest version under /usr/lib/postgresql.
func findBin() (string, error) {
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

// credential is who runs initdb and postgres: nil for the current user, or
// "nobody" (ORDO_PEERS_POSTGRES_USER) when running as root.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	name := os.Getenv("ORDO_PEERS_POSTGRES_USER")
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root, and user %s for PostgreSQL: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("user %s: uid %q gid %q", name, u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// startCluster runs initdb and starts postgres, waiting until it answers.
func startCluster(ctx context.Context, bin string) (_ *cluster, err error) {
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ordo-peers-pg-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, port: port, logf: logf}
	// Durable commits, as ordo's tests run them; the rest is PostgreSQL's
	// defaults but for the connections (River's pool and ordo's).
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "port="+strconv.Itoa(port),
		"-c", "unix_socket_directories="+dir,
		"-c", "fsync=on",
		"-c", "synchronous_commit=on",
		"-c", "full_page_writes=on",
		"-c", "max_connections=400",
		"-c", "log_min_messages=warning")
	c.cmd.Dir = dir
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	c.exited = make(chan struct{})
	go func() {
		c.exitErr = c.cmd.Wait()
		close(c.exited)
	}()
	if err := c.waitReady(ctx); err != nil {
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
func (c *cluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, c.url("postgres").String())
		if err == nil {
			return conn.Close(ctx)
		}
		t := wall.NewTimer(20 * time.Millisecond)
		select {
		case <-c.exited:
			t.Stop()
			return fmt.Errorf("postgres exited: %w", c.exitErr)
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("postgres not ready: %w", err)
		case <-t.C():
		}
	}
}

// url is the URL of a database of the cluster.
func (c *cluster) url(db string) *url.URL {
	return &url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
}

// stop asks postgres for a fast shutdown, waits for it (at most 30s, then
// kills it) and removes the directory.
func (c *cluster) stop() error {
	c.stopOnce.Do(func() {
		pid := c.cmd.Process.Pid
		_ = syscall.Kill(pid, syscall.SIGINT)
		t := wall.NewTimer(30 * time.Second)
		select {
		case <-c.exited:
			t.Stop()
		case <-t.C():
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-c.exited
			c.stopErr = errors.New("postgres did not stop within 30s: killed")
		}
		_ = c.logf.Close()
		if err := os.RemoveAll(c.dir); err != nil {
			c.stopErr = errors.Join(c.stopErr, err)
		}
	})
	return c.stopErr
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
