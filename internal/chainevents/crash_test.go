package chainevents_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chainevents"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/testkit"
)

// store is a durable store as a Handler sees it: the events a handler
// committed and the cursor, changed together or not at all. It outlives the
// listeners, as a database outlives a crashed node.
type store struct {
	mu     sync.Mutex
	cursor uint64
	events []chain.Event
}

// commit is the handler's one transaction: the events not yet committed
// (Cursor above the stored cursor: a retried page after a lost
// acknowledgment adds nothing) and the new cursor.
func (s *store) commit(evs []chain.Event, next uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range evs {
		if e.Cursor > s.cursor {
			s.events = append(s.events, e)
		}
	}
	s.cursor = max(s.cursor, next)
}

func (s *store) load() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cursor
}

// fate is what the fake node does with one page.
type fate int

const (
	commitOK    fate = iota // commit, return nil
	failBefore              // return an error, nothing committed
	lostAck                 // commit, then return an error
	crashBefore             // the node dies before the commit
	crashAfter              // the node dies after the commit, before the listener hears of it
	numFates
)

// errCrash is how the handler stops the page when the node dies.
var errCrash = errors.New("node crashed")

// TestExactlyOnceAcrossCrashes drives a devchain emitting zkapp events, a
// listener and a store through random pages, handler failures, lost
// acknowledgments, node crashes (a new listener from the stored cursor) and,
// with a declared reorg depth, reorgs within it. At the end the store holds
// exactly the chain's events (those the Filter keeps), in order: no gap, no
// duplicate. ORDO_SEED replays a run; ORDO_SEEDS sets how many seeds run.
func TestExactlyOnceAcrossCrashes(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("ORDO_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("ORDO_SEED: %v", err)
		}
	}
	runs, steps := 8, 400
	if !testkit.Long() {
		runs, steps = 2, 200
	}
	if s := os.Getenv("ORDO_SEEDS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	for i := range runs {
		s := seed + int64(i)
		for _, reorgs := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d/reorgs=%v", s, reorgs), func(t *testing.T) {
				t.Logf("seed %d (replay: ORDO_SEED=%d ORDO_SEEDS=1)", s, s)
				runCrashes(t, uint64(s), reorgs, steps)
			})
		}
	}
}

func runCrashes(t *testing.T, seed uint64, reorgs bool, steps int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 0x0e7e))
	clk := clock.NewVirtual(clock.Epoch)
	cfg := devchain.Config{Seed: seed%1000 + 1, Clock: clk}
	if reorgs {
		cfg.FinalityDepth = 3
	}
	dc, err := devchain.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dc.Close() }()
	devs, err := dc.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var filter func(chain.Event) bool
	if rng.IntN(2) == 0 {
		filter = func(e chain.Event) bool { return e.Name != "set" }
	}
	st := &store{}
	var fates []fate // the next pages' fates, drawn per poll
	var l *chainevents.Listener
	var handedOver uint64 // the last next this listener's handler returned nil for
	crashed := false
	restart := func() {
		handedOver = st.load()
		l = &chainevents.Listener{Chain: dc, From: handedOver, PageSize: 1 + rng.IntN(5), Filter: filter, Logger: quiet,
			Handler: func(ctx context.Context, evs []chain.Event, next uint64) error {
				for _, e := range evs {
					if e.Cursor <= handedOver {
						t.Fatalf("event %d handed over again (the listener's cursor was %d)", e.Cursor, handedOver)
					}
				}
				if len(evs) > 0 && evs[len(evs)-1].Cursor > next || next <= handedOver {
					t.Fatalf("page %v with next %d after %d", evs, next, handedOver)
				}
				f := commitOK
				if len(fates) > 0 {
					f, fates = fates[0], fates[1:]
				}
				switch f {
				case failBefore:
					return errors.New("store unavailable")
				case crashBefore:
					crashed = true
					return errCrash
				default: // commitOK, lostAck, crashAfter: the commit happens
				}
				st.commit(evs, next)
				switch f {
				case lostAck:
					return errors.New("commit acknowledgment lost")
				case crashAfter:
					crashed = true
					return errCrash
				default: // commitOK, failBefore, crashBefore: acknowledged as it is
				}
				handedOver = next
				return nil
			}}
	}
	restart()
	zkapps := 0
	for step := range steps {
		switch r := rng.IntN(10); {
		case r < 4: // transactions: deploy a zkapp or change one
			for range 1 + rng.IntN(4) {
				from := devs[rng.IntN(len(devs))].Address
				acct, err := dc.Account(ctx, from)
				if err != nil {
					t.Fatal(err)
				}
				var args []byte
				method := "deploy"
				if zkapps > 0 && rng.IntN(2) == 0 {
					method = "set"
					args, _ = json.Marshal(map[string]any{"zkapp": fmt.Sprintf("z%d", rng.IntN(zkapps)), "key": "k", "value": step})
				} else {
					args, _ = json.Marshal(map[string]any{"zkapp": fmt.Sprintf("z%d", zkapps)})
					zkapps++
				}
				if _, err := dc.SendTx(ctx, chain.Tx{From: from, Nonce: acct.PendingNonce, Fee: 2000, Contract: "zkapp", Method: method, Args: args}); err != nil {
					t.Fatalf("step %d: send: %v", step, err)
				}
			}
		case r < 6:
			clk.Advance(time.Second)
			if _, _, err := dc.Mine(ctx); err != nil {
				t.Fatal(err)
			}
		case r < 7 && reorgs:
			d := uint64(1 + rng.IntN(3))
			if _, err := dc.SetFaults(ctx, devchain.FaultUpdate{Reorg: &d}); err != nil {
				t.Fatal(err)
			}
		default:
			for range 1 + rng.IntN(3) {
				fates = append(fates, fate(rng.IntN(int(numFates))))
			}
			for range len(fates) {
				if _, err := l.Poll(ctx); err != nil && !crashed && errors.Is(err, chainevents.ErrBadPage) {
					t.Fatalf("step %d: %v", step, err)
				}
				if crashed { // the node's memory is gone: a new listener from the store
					crashed = false
					restart()
				}
			}
		}
	}
	// Settle: make every block final, then read to the end.
	fates = nil
	for range cfg.FinalityDepth + 1 {
		clk.Advance(time.Second)
		if _, _, err := dc.Mine(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for {
		n, err := l.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	want, err := dc.Events(ctx, 0, devchain.MaxEventsPerRequest)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == devchain.MaxEventsPerRequest {
		t.Fatal("more events than one read returns: shorten the run")
	}
	head, _ := dc.Head(ctx)
	kept := want[:0:0]
	for _, e := range want {
		if filter == nil || filter(e) {
			kept = append(kept, e)
		}
	}
	if len(kept) != len(st.events) {
		t.Fatalf("committed %d events, the chain has %d (head %d)", len(st.events), len(kept), head.Height)
	}
	for i := range kept {
		a, b := st.events[i], kept[i]
		if a.Cursor != b.Cursor || a.TxHash != b.TxHash || a.Name != b.Name || string(a.Data) != string(b.Data) {
			t.Fatalf("event %d: committed %+v, the chain has %+v", i, a, b)
		}
	}
	if len(want) > 0 && st.load() != want[len(want)-1].Cursor {
		t.Fatalf("stored cursor %d, the chain's last event is %d", st.load(), want[len(want)-1].Cursor)
	}
	t.Logf("%d events committed (%d on chain), head %d", len(st.events), len(want), head.Height)
}
