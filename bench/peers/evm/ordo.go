package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// ordoModule is the first line of the repository's go.mod.
const ordoModule = "module github.com/ordolabs/ordo"

// repoRoot walks up from the working directory to ordo's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == ordoModule {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("ordo's repository (go.mod of github.com/ordolabs/ordo) not found above the working directory: run from the repository or pass --ordo")
		}
		dir = parent
	}
}

// buildOrdo builds cmd/ordo into dir and returns the binary's path.
func buildOrdo(ctx context.Context, dir string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "ordo")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/ordo")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/ordo in %s: %w\n%s", root, err, out)
	}
	return bin, nil
}

// intent is one intent of the voting flow: queue claim-<q> opens its claim
// (create_claim_voting_account), then takes votes (send_claim_vote), each
// a `call` of the Voting contract through the router.
type intent struct {
	Queue          string          `json:"queue"`
	Type           string          `json:"type"`
	Data           json.RawMessage `json:"data"`
	IdempotencyKey string          `json:"idempotencyKey"`
}

// plan is the voting flow over queues queues: setup opens each queue's
// claim (create_claim_voting_account), then n votes (send_claim_vote),
// in intake order: vote i is on queue i mod queues (queueOf), so the
// queues interleave.
func plan(n, queues int) (setup, votes []intent) {
	call := func(key, method string, args map[string]any, q int) intent {
		b, _ := json.Marshal(map[string]any{"contract": "voting", "method": method, "args": args})
		return intent{Queue: fmt.Sprintf("claim-%d", q), Type: "call", Data: b, IdempotencyKey: key}
	}
	for q := range queues {
		setup = append(setup, call(fmt.Sprintf("peers-create-%d", q), "create_claim_voting_account",
			map[string]any{"account": fmt.Sprintf("claim-%d", q), "title": "peers"}, q))
	}
	for i := range n {
		q, j := queueOf(i, queues), i/queues
		votes = append(votes, call(fmt.Sprintf("peers-vote-%d", i), "send_claim_vote",
			map[string]any{"account": fmt.Sprintf("claim-%d", q), "voter": fmt.Sprintf("voter-%d", j), "vote": j%2 == 0}, q))
	}
	return setup, votes
}

// queueOf is vote i's queue in a plan of queues queues.
func queueOf(i, queues int) int { return i % queues }

// record is what the run reads of a node's transaction record.
type record struct {
	UID            string `json:"uid"`
	State          string `json:"state"`
	Error          string `json:"error"`
	IdempotencyKey string `json:"idempotencyKey"`
	Attempts       []struct {
		Hash    string `json:"hash"`
		Outcome string `json:"outcome"`
	} `json:"attempts"`
}

// ordoRun is the result of ordo's run: the setup's transactions, the
// votes' samples (in plan order) and their time span.
type ordoRun struct {
	setup      []onChain
	samples    []sample
	start, end time.Time
}

// runOrdo starts a chain and `ordo serve` on it with K keystore senders,
// takes the setup and waits until it is DONE (not measured), then takes
// the votes in batches, waits until every one is DONE and reads each
// intent's transaction from the chain.
func runOrdo(ctx context.Context, bin string, o options, setup, intents []intent) (ordoRun, error) {
	dir, err := os.MkdirTemp("", "ordo-peers-evm-ordo-")
	if err != nil {
		return ordoRun{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ch, err := startDevChain(ctx, bin, filepath.Join(dir, "chain"), o.keys+1, o.blockTime)
	if err != nil {
		return ordoRun{}, err
	}
	defer ch.stop()
	var senders strings.Builder
	for k := 1; k <= o.keys; k++ {
		fmt.Fprintf(&senders, "  - keyFile: %s\n", ch.keyFile(k))
	}
	cfg := "# bench/peers/evm: ordo's run\ndevMode: true\ndevSenders: 0\nsenders:\n" + senders.String()
	if o.inFlight > 1 {
		cfg += fmt.Sprintf("sequencer:\n  pipelines:\n    - {prefix: \"\", inFlight: %d}\n", o.inFlight)
	}
	cfg += ch.evmYAML
	cfgPath := filepath.Join(dir, "ordo.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return ordoRun{}, err
	}
	addr, err := freeAddr()
	if err != nil {
		return ordoRun{}, err
	}
	node := exec.Command(bin, "serve", "--config", cfgPath, "--listen", addr, "--data", filepath.Join(dir, "node"))
	logf, err := os.Create(filepath.Join(dir, "node.log"))
	if err != nil {
		return ordoRun{}, err
	}
	defer func() { _ = logf.Close() }()
	node.Stdout, node.Stderr = logf, logf
	if err := node.Start(); err != nil {
		return ordoRun{}, fmt.Errorf("ordo serve: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = node.Wait(); close(exited) }()
	defer func() {
		_ = node.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = node.Process.Kill()
			<-exited
		}
	}()
	nodeLog := func() string { b, _ := os.ReadFile(filepath.Join(dir, "node.log")); return tail(string(b), 4000) }
	base := "http://" + addr
	hc := &http.Client{Timeout: 30 * time.Second}
	if err := waitHealthy(ctx, hc, base+"/healthz", exited); err != nil {
		return ordoRun{}, fmt.Errorf("ordo serve: %w\n%s", err, nodeLog())
	}
	ec, hs, stopFollow, err := follow(ctx, ch.httpURL)
	if err != nil {
		return ordoRun{}, err
	}
	defer stopFollow()

	// The setup, not measured: each claim open before its votes are sent,
	// so that their gas estimates see it.
	if _, err := intake(ctx, hc, base, hs, setup, o.batch); err != nil {
		return ordoRun{}, fmt.Errorf("%w\n%s", err, nodeLog())
	}
	if _, err := waitDone(ctx, hc, base, len(setup), node, exited); err != nil {
		return ordoRun{}, fmt.Errorf("the setup: %w\n%s", err, nodeLog())
	}

	start := time.Now()
	heads, err := intake(ctx, hc, base, hs, intents, o.batch)
	if err != nil {
		return ordoRun{}, fmt.Errorf("%w\n%s", err, nodeLog())
	}
	// Wait until every intent is DONE; a FAILED one is an error.
	recs, err := waitDone(ctx, hc, base, len(setup)+len(intents), node, exited)
	if err != nil {
		return ordoRun{}, fmt.Errorf("%w\n%s", err, nodeLog())
	}
	byKey := map[string]record{}
	for _, r := range recs {
		byKey[r.IdempotencyKey] = r
	}
	all := append(append([]intent{}, setup...), intents...)
	hashes := make([]common.Hash, len(all))
	for i, in := range all {
		r, ok := byKey[in.IdempotencyKey]
		if !ok {
			return ordoRun{}, fmt.Errorf("intent %s: no record", in.IdempotencyKey)
		}
		found := false
		for _, a := range r.Attempts {
			if a.Outcome == "included" && a.Hash != "" {
				hashes[i], found = common.HexToHash(a.Hash), true
			}
		}
		if !found {
			return ordoRun{}, fmt.Errorf("intent %s (%s) is DONE without an included attempt", in.IdempotencyKey, r.UID)
		}
	}
	txs, err := readTxs(ctx, ec, ch.router, hashes)
	if err != nil {
		return ordoRun{}, err
	}
	run := ordoRun{setup: txs[:len(setup)], samples: make([]sample, len(intents)), start: start}
	for i := range intents {
		run.samples[i] = sample{head: heads[i], tx: txs[len(setup)+i]}
	}
	run.end, err = hs.waitSeen(ctx, lastBlock(run.samples))
	return run, err
}

// intake posts intents in batches and returns the head read as each
// intent's batch was answered.
func intake(ctx context.Context, hc *http.Client, base string, hs *heads, intents []intent, batch int) ([]uint64, error) {
	out := make([]uint64, len(intents))
	for lo := 0; lo < len(intents); lo += batch {
		hi := min(lo+batch, len(intents))
		if err := postBatch(ctx, hc, base, intents[lo:hi]); err != nil {
			return nil, fmt.Errorf("intake of %s–%s: %w", intents[lo].IdempotencyKey, intents[hi-1].IdempotencyKey, err)
		}
		h := hs.head()
		for i := lo; i < hi; i++ {
			out[i] = h
		}
	}
	return out, nil
}

// postBatch posts intents as one array and checks each was taken.
func postBatch(ctx context.Context, hc *http.Client, base string, batch []intent) error {
	body, err := json.Marshal(batch)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/transactions", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST /v1/transactions: %s: %s", resp.Status, tail(string(b), 500))
	}
	var results []struct {
		Status int `json:"status"`
		Error  *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &results); err != nil {
		return fmt.Errorf("POST /v1/transactions: %w", err)
	}
	if len(results) != len(batch) {
		return fmt.Errorf("POST /v1/transactions: %d results for %d intents", len(results), len(batch))
	}
	for i, r := range results {
		if r.Error != nil || r.Status/100 != 2 {
			return fmt.Errorf("intent %s refused: %d %+v", batch[i].IdempotencyKey, r.Status, r.Error)
		}
	}
	return nil
}

// waitDone polls GET /v1/transactions until n records are DONE; a FAILED
// record, the node's exit or ctx's end is an error.
func waitDone(ctx context.Context, hc *http.Client, base string, n int, node *exec.Cmd, exited <-chan struct{}) ([]record, error) {
	for {
		var all []record
		cursor := ""
		for {
			u := base + "/v1/transactions?limit=1000"
			if cursor != "" {
				u += "&cursor=" + cursor
			}
			var page struct {
				Transactions []record `json:"transactions"`
				Next         string   `json:"next"`
			}
			if err := getJSON(ctx, hc, u, &page); err != nil {
				return nil, err
			}
			all = append(all, page.Transactions...)
			if page.Next == "" || len(page.Transactions) == 0 {
				break
			}
			cursor = page.Next
		}
		done := 0
		for _, r := range all {
			switch r.State {
			case "DONE":
				done++
			case "FAILED":
				return nil, fmt.Errorf("intent %s (%s) FAILED: %s", r.IdempotencyKey, r.UID, r.Error)
			}
		}
		if done == n && len(all) == n {
			return all, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%d of %d intents DONE: %w", done, n, ctx.Err())
		case <-exited:
			return nil, fmt.Errorf("ordo serve exited: %s", node.ProcessState)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, tail(string(b), 500))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// waitHealthy polls url until it answers 200.
func waitHealthy(ctx context.Context, hc *http.Client, url string, exited <-chan struct{}) error {
	deadline := time.After(60 * time.Second)
	for {
		if resp, err := hc.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return errors.New("exited")
		case <-deadline:
			return errors.New("not healthy within 60s")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freeAddr is a free loopback address.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
