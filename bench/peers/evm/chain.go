package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// devChain is one `ordo evmdev` process and what it printed.
type devChain struct {
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	dir     string        // its --data directory: dev<i>.key and evm.yaml
	httpURL string
	chainID *big.Int
	router  common.Address
	evmYAML string // the node config's evm: section (DIR/evm.yaml)
}

var (
	printedHTTP    = regexp.MustCompile(`(?m)^HTTP\s+(http://\S+)$`)
	printedChainID = regexp.MustCompile(`(?m)^chain id\s+([0-9]+)$`)
	printedRouter  = regexp.MustCompile(`(?m)^router\s+(0x[0-9a-fA-F]{40})\b`)
)

// startDevChain runs `ordo evmdev` on free loopback ports with accounts
// funded dev accounts and the block time, its keys and evm.yaml in dir,
// and waits until it printed its node config.
func startDevChain(ctx context.Context, bin, dir string, accounts int, blockTime time.Duration) (*devChain, error) {
	cmd := exec.Command(bin, "evmdev", "--http", "127.0.0.1:0", "--ws", "127.0.0.1:0",
		"--block-time", blockTime.String(), "--accounts", strconv.Itoa(accounts), "--data", dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ordo evmdev: %w", err)
	}
	c := &devChain{cmd: cmd, done: make(chan struct{}), dir: dir}
	printed := make(chan string, 1)
	go func() {
		var text strings.Builder
		s := bufio.NewScanner(out)
		sent := false
		for s.Scan() {
			if sent {
				continue
			}
			text.WriteString(s.Text() + "\n")
			if strings.HasPrefix(s.Text(), "node config:") {
				printed <- text.String()
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(c.done)
	}()
	var text string
	select {
	case text = <-printed:
	case <-c.done:
		return nil, errors.New("ordo evmdev exited before printing its node config")
	case <-ctx.Done():
		c.stop()
		return nil, fmt.Errorf("ordo evmdev: %w", ctx.Err())
	case <-time.After(60 * time.Second):
		c.stop()
		return nil, errors.New("ordo evmdev printed no node config within 60s")
	}
	m := printedHTTP.FindStringSubmatch(text)
	id := printedChainID.FindStringSubmatch(text)
	r := printedRouter.FindStringSubmatch(text)
	if m == nil || id == nil || r == nil {
		c.stop()
		return nil, fmt.Errorf("ordo evmdev's output lacks its HTTP URL, chain id or router:\n%s", text)
	}
	c.httpURL, c.router = m[1], common.HexToAddress(r[1])
	c.chainID, _ = new(big.Int).SetString(id[1], 10)
	// The section is written before the output ends; wait for the file.
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile(filepath.Join(dir, "evm.yaml"))
		if err == nil && strings.Contains(string(b), "router") {
			c.evmYAML = string(b)
			break
		}
		if time.Now().After(deadline) {
			c.stop()
			if err == nil {
				err = errors.New("it names no router")
			}
			return nil, fmt.Errorf("ordo evmdev wrote no evm.yaml in %s: %w", dir, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c, nil
}

// keyFile is dev account i's raw key file.
func (c *devChain) keyFile(i int) string { return filepath.Join(c.dir, fmt.Sprintf("dev%d.key", i)) }

// stop ends the chain (SIGTERM, then SIGKILL after 10 s) and waits for it.
func (c *devChain) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// heads follows a chain's head by polling eth_blockNumber and records
// when each height was first seen.
type heads struct {
	mu    sync.Mutex
	seen  map[uint64]time.Time
	last  uint64
	ready chan struct{}
}

// follow dials the chain's JSON-RPC at url and follows its head
// (watchHeads) until stop; it returns once the first head is read.
func follow(ctx context.Context, url string) (ec *ethclient.Client, hs *heads, stop func(), err error) {
	if ec, err = ethclient.DialContext(ctx, url); err != nil {
		return nil, nil, nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	stop = func() { cancel(); ec.Close() }
	hs = watchHeads(wctx, ec)
	select {
	case <-hs.ready:
		return ec, hs, stop, nil
	case <-ctx.Done():
		stop()
		return nil, nil, nil, ctx.Err()
	}
}

// watchHeads polls ec every 20 ms until ctx ends.
func watchHeads(ctx context.Context, ec *ethclient.Client) *heads {
	h := &heads{seen: map[uint64]time.Time{}, ready: make(chan struct{})}
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		first := true
		for {
			if n, err := ec.BlockNumber(ctx); err == nil {
				now := time.Now()
				h.mu.Lock()
				for b := h.last + 1; b <= n; b++ {
					h.seen[b] = now
				}
				h.last = max(h.last, n)
				h.mu.Unlock()
				if first {
					close(h.ready)
					first = false
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

// head is the latest height seen.
func (h *heads) head() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// seenAt is when height b was first seen (false if not yet).
func (h *heads) seenAt(b uint64) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.seen[b]
	return t, ok
}

// waitSeen waits until height b has been seen and returns when.
func (h *heads) waitSeen(ctx context.Context, b uint64) (time.Time, error) {
	for {
		if t, ok := h.seenAt(b); ok {
			return t, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// The router's outcome events (contracts/OrdoRouter.sol).
var (
	topicApplied   = crypto.Keccak256Hash([]byte("IntentApplied(bytes32,address,bytes32)"))
	topicDuplicate = crypto.Keccak256Hash([]byte("IntentDuplicate(bytes32,address,uint64)"))
	topicConflict  = crypto.Keccak256Hash([]byte("IntentConflict(bytes32,address,bytes32,uint64)"))
	topicFailed    = crypto.Keccak256Hash([]byte("IntentFailed(bytes32,address,uint256,bytes)"))
)

// onChain is one transaction as the chain holds it.
type onChain struct {
	hash     common.Hash
	to       common.Address
	input    []byte
	gas      uint64 // the gas limit
	block    uint64
	gasUsed  uint64
	price    *big.Int // the effective gas price
	baseFee  *big.Int // its block's base fee
	fullness float64  // its block's gas used over its gas limit
	reverted bool     // status 0
	failed   string   // a router outcome other than IntentApplied, or none
}

// readTxs reads each hash's transaction, receipt and block base fee.
func readTxs(ctx context.Context, ec *ethclient.Client, router common.Address, hashes []common.Hash) ([]onChain, error) {
	heads := map[uint64]*types.Header{}
	out := make([]onChain, len(hashes))
	for i, h := range hashes {
		tx, _, err := ec.TransactionByHash(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("transaction %s: %w", h, err)
		}
		r, err := ec.TransactionReceipt(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("receipt of %s: %w", h, err)
		}
		b := r.BlockNumber.Uint64()
		hd := heads[b]
		if hd == nil {
			if hd, err = ec.HeaderByNumber(ctx, r.BlockNumber); err != nil {
				return nil, fmt.Errorf("block %d: %w", b, err)
			}
			heads[b] = hd
		}
		o := onChain{hash: h, input: tx.Data(), gas: tx.Gas(), block: b, gasUsed: r.GasUsed,
			price: r.EffectiveGasPrice, baseFee: hd.BaseFee, fullness: float64(hd.GasUsed) / float64(max(hd.GasLimit, 1)),
			reverted: r.Status != types.ReceiptStatusSuccessful, failed: routerOutcome(r.Logs, router)}
		if tx.To() != nil {
			o.to = *tx.To()
		}
		out[i] = o
	}
	return out, nil
}

// routerOutcome is "" for a receipt whose router event is IntentApplied,
// else the event's name (or "no router event").
func routerOutcome(logs []*types.Log, router common.Address) string {
	for _, l := range logs {
		if l.Address != router || len(l.Topics) == 0 {
			continue
		}
		switch l.Topics[0] {
		case topicApplied:
			return ""
		case topicDuplicate:
			return "IntentDuplicate"
		case topicConflict:
			return "IntentConflict"
		case topicFailed:
			return "IntentFailed"
		}
	}
	return "no router event"
}
