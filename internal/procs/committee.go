package procs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/committee"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// ErrRunning is returned (wrapped) by States and RemoveData for a node that is running
// (its store is the process's).
var ErrRunning = errors.New("procs: node is running")

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("json-rpc error %d: %s %s", e.Code, e.Message, e.Data)
}

// listens reads a node config's API and gRPC addresses.
func listens(config string) (api, grpc string, err error) {
	c, err := node.LoadConfig(config)
	if err != nil {
		return "", "", err
	}
	return c.Listen, c.Distseq.Listen, nil
}

// Config is the committee's config, with its defaults filled.
func (c *Committee) Config() Config { return c.cfg }

// Nodes is the committee's size.
func (c *Committee) Nodes() int { return len(c.members) }

// Member is node i (from 0).
func (c *Committee) Member(i int) Member { return c.members[i] }

// NodeID is node i's id.
func (c *Committee) NodeID(i int) string { return c.members[i].ID }

// Index is the index of the node with id, or -1.
func (c *Committee) Index(id string) int {
	for i, m := range c.members {
		if m.ID == id {
			return i
		}
	}
	return -1
}

// ChainURL is the devchain's base URL ("" on an EVM chain: Config().EVM).
func (c *Committee) ChainURL() string { return c.chainURL }

// Chain is a client of the devchain.
func (c *Committee) Chain() *devchain.Client { return devchain.NewClient(c.chainURL, nil) }

// LogPath is node i's log file.
func (c *Committee) LogPath(i int) string { return c.nodes[i].logPath }

// Tail is the last n lines of node i's log.
func (c *Committee) Tail(i, n int) string { return c.nodes[i].tail(n) }

// PIDs are the running processes' ids: the devchain's (none on an EVM
// chain), then the nodes'.
func (c *Committee) PIDs() []int {
	var out []int
	for _, p := range append([]*Process{c.chain}, c.nodes...) {
		if p == nil {
			continue
		}
		if pid := p.PID(); pid != 0 {
			out = append(out, pid)
		}
	}
	return out
}

// Running reports whether node i's process is alive.
func (c *Committee) Running(i int) bool { return c.nodes[i].Running() }

// RPC calls method with params on node i's ptx_ JSON-RPC API (POST /rpc)
// with the node's bearer token, and returns the result; a JSON-RPC error
// is an *RPCError.
func (c *Committee) RPC(ctx context.Context, i int, method string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, fmt.Errorf("procs: %s: %w", method, err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := c.do(ctx, i, http.MethodPost, "/rpc", body, &resp); err != nil {
		return nil, fmt.Errorf("procs: node%d %s: %w", i+1, method, err)
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// Send sends a token transfer {"to", "amount"} from the admin
// principal's coins (minted by `ordo committee deploy`) on the committee's group
// to node i with ptx_sendTransaction under the idempotency key, and
// returns the transaction's id.
func (c *Committee) Send(ctx context.Context, i int, key, to string, amount uint64) (string, error) {
	raw, err := c.RPC(ctx, i, "ptx_sendTransaction", []any{map[string]any{
		"type": "private", "domain": "token", "function": "transfer", "from": committee.AdminPrincipal, "to": c.cfg.Group,
		"data": map[string]any{"to": to, "amount": amount}, "idempotencyKey": key}})
	if err != nil {
		return "", err
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil || id == "" {
		return "", fmt.Errorf("procs: node%d ptx_sendTransaction answered %s", i+1, raw)
	}
	return id, nil
}

// Peers reads node i's GET /v1/peers.
func (c *Committee) Peers(ctx context.Context, i int) (ptx.PeersPage, error) {
	var pg ptx.PeersPage
	if err := c.do(ctx, i, http.MethodGet, "/v1/peers", nil, &pg); err != nil {
		return pg, fmt.Errorf("procs: node%d /v1/peers: %w", i+1, err)
	}
	return pg, nil
}

// Coordinator is the group's coordinator as most running nodes see it
// now (GET /v1/peers), with its index in the committee (-1 for an id
// that is not a member), and how many nodes agreed.
func (c *Committee) Coordinator(ctx context.Context, group string) (idx int, id string, agree int, err error) {
	votes := map[string]int{}
	var errs []error
	for i := range c.nodes {
		if !c.Running(i) {
			continue
		}
		pg, err := c.Peers(ctx, i)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if co := pg.Coordinators[group]; co != "" {
			votes[co]++
		}
	}
	for co, n := range votes {
		if n > agree || (n == agree && co < id) {
			id, agree = co, n
		}
	}
	if id == "" {
		return -1, "", 0, fmt.Errorf("procs: no node names a coordinator of %s: %w", group, errors.Join(errs...))
	}
	return c.Index(id), id, agree, nil
}

// do is Request with a JSON body given as bytes, bounded by 10s too.
func (c *Committee) do(ctx context.Context, i int, method, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var in any
	if body != nil {
		in = json.RawMessage(body)
	}
	_, err := c.Request(ctx, i, method, path, in, out)
	return err
}

// StatusError is a node's answer other than 2xx to Request.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body) }

// Request sends one request to node i's API with its token, body (when
// not nil) as JSON, bounded by ctx alone; it returns the HTTP status and
// decodes a 2xx answer into out (when not nil). Any other status is a
// *StatusError with the answer's body.
func (c *Committee) Request(ctx context.Context, i int, method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, fmt.Errorf("procs: %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.members[i].API+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.members[i].Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.api.Do(req)
	if err != nil {
		return 0, fmt.Errorf("procs: node%d %s %s: %w", i+1, method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("procs: node%d %s %s: %w", i+1, method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, &StatusError{Status: resp.StatusCode, Body: string(bytes.TrimSpace(b))}
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("procs: node%d %s %s: %w: %s", i+1, method, path, err, b)
		}
	}
	return resp.StatusCode, nil
}

// RemoveData deletes stopped node i's data directory (a lost disk).
func (c *Committee) RemoveData(i int) error {
	if c.Running(i) {
		return fmt.Errorf("%w: node%d", ErrRunning, i+1)
	}
	if err := os.RemoveAll(c.members[i].Data); err != nil {
		return fmt.Errorf("procs: node%d: %w", i+1, err)
	}
	return nil
}

// Kill sends SIGKILL to node i and waits for it to exit.
func (c *Committee) Kill(i int) error { return c.nodes[i].kill() }

// Start starts node i again (it must not be running) and waits until it
// is ready and has indexed the group.
func (c *Committee) Start(ctx context.Context, i int) error {
	if err := c.nodes[i].start(); err != nil {
		return err
	}
	return c.waitReady(ctx, i)
}

// Stop ends every node, then the devchain: SIGTERM, SIGKILL after
// Config.StopGrace, and waits for each. It may be called more than once.
func (c *Committee) Stop(ctx context.Context) {
	var wg sync.WaitGroup
	for _, p := range c.nodes {
		wg.Go(func() { _, _ = p.term(ctx, c.cfg.StopGrace) })
	}
	wg.Wait()
	if c.chain != nil {
		_, _ = c.chain.term(ctx, c.cfg.StopGrace)
	}
}

// States reads every state of group in stopped node i's store (spent and
// unspent).
func (c *Committee) States(ctx context.Context, i int, group string) ([]store.DistseqState, error) {
	if c.Running(i) {
		return nil, fmt.Errorf("%w: node%d", ErrRunning, i+1)
	}
	return c.readStates(ctx, i, group)
}

// LiveStates is States for a node that may be running: it reads through a
// second connection to the node's SQLite database, which WAL mode lets
// read beside the node's writer (a snapshot of what is committed).
func (c *Committee) LiveStates(ctx context.Context, i int, group string) ([]store.DistseqState, error) {
	return c.readStates(ctx, i, group)
}

func (c *Committee) readStates(ctx context.Context, i int, group string) ([]store.DistseqState, error) {
	st, err := sqlite.Open(ctx, filepath.Join(c.members[i].Data, "ordo.db"), sqlite.Options{})
	if err != nil {
		return nil, fmt.Errorf("procs: node%d store: %w", i+1, err)
	}
	defer st.Close()
	sts, err := st.DistseqStates(ctx, group, false)
	if err != nil {
		return nil, fmt.Errorf("procs: node%d states: %w", i+1, err)
	}
	return sts, nil
}
