package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/store"
)

// The leader simulation's invariants, as a violation names them.
const (
	InvLeadLost     = "no request lost"
	InvLeadTwice    = "no walk gets two results on chain"
	InvLeadOurs     = "the leader lands at most one result per walk"
	InvLeadSuccess  = "Successful only with our ok result on chain"
	InvLeadDead     = "Dead only with a reason, the one reported on chain"
	InvLeadFinal    = "Successful and Dead are final"
	InvLeadCache    = "the tool cache follows the registry"
	InvLeadLiveness = "every request ends with a result on chain once faults stop"
)

// leadChecker follows what the leader did, as its store and the chain show
// it, and checks the invariants after every step.
type leadChecker struct {
	w    *leadWorld
	ours map[string]bool // the leader's accounts
	// reqs are the final RequestWalkExecution events, by walk: its cursor.
	reqs    map[string]uint64
	indexed map[string]bool              // walks the store was seen to hold
	ended   map[string]store.LeaderEvent // walks whose record ended, as it ended
	// regs are the final registry registrations per tool: cursor and the
	// generation its URL names (0: deregistered).
	regs     map[string][]leadReg
	evCursor uint64 // events scanned
	// Results (successful submit_result transactions) on the final chain:
	// by walk, from anyone and from the leader's accounts.
	finScanned       uint64
	finAll, finOurs  map[string]int
	tailAll, tailOur map[string]int
	blocked          map[int]string // channel → the BlockedUntil last seen
	submits          int
	failures         []error
}

type leadReg struct {
	cursor uint64
	gen    uint64
}

func newLeadChecker(w *leadWorld) *leadChecker {
	return &leadChecker{w: w, ours: map[string]bool{}, reqs: map[string]uint64{}, indexed: map[string]bool{},
		ended: map[string]store.LeaderEvent{}, regs: map[string][]leadReg{}, finAll: map[string]int{}, finOurs: map[string]int{},
		blocked: map[int]string{}}
}

func (k *leadChecker) fail(inv, format string, args ...any) {
	k.failures = append(k.failures, &invariantError{inv: inv, detail: fmt.Sprintf(format, args...)})
}

// finalHeight is the highest final height at the chain's head.
func (k *leadChecker) finalHeight(ctx context.Context) (uint64, uint64, error) {
	h, err := k.w.dc.Head(ctx)
	if err != nil {
		return 0, 0, err
	}
	if h.Height < leadFinality {
		return 0, h.Height, nil
	}
	return h.Height - leadFinality, h.Height, nil
}

// scanEvents reads the final events after the last scan: requests and
// registrations.
func (k *leadChecker) scanEvents(ctx context.Context) error {
	final, _, err := k.finalHeight(ctx)
	if err != nil {
		return err
	}
	for {
		evs, err := k.w.dc.Events(ctx, k.evCursor, 256)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Height > final {
				return nil
			}
			k.evCursor = e.Cursor
			switch {
			case e.Contract == devchain.WorkflowContract && e.Name == "RequestWalkExecution":
				var d devchain.RequestWalkExecution
				if err := json.Unmarshal(e.Data, &d); err != nil {
					return err
				}
				if c, ok := k.reqs[d.Walk]; ok {
					k.fail(InvLeadLost, "walk %s requested twice on the final chain (events %d and %d)", d.Walk, c, e.Cursor)
				}
				k.reqs[d.Walk] = e.Cursor
			case e.Contract == devchain.RegistryContract && e.Name == "ToolRegistered":
				var d devchain.ToolRegistered
				if err := json.Unmarshal(e.Data, &d); err != nil {
					return err
				}
				_, g := toolOfHost(strings.TrimSuffix(strings.TrimPrefix(d.URL, "http://"), "/"))
				k.regs[d.Tool] = append(k.regs[d.Tool], leadReg{cursor: e.Cursor, gen: g})
			}
		}
		if len(evs) < 256 {
			return nil
		}
	}
}

// toolOfHost reads "t<i>-v<g>.sim" as ("t<i>", g); g 0 when not so.
func toolOfHost(host string) (string, uint64) {
	name, ver, ok := strings.Cut(strings.TrimSuffix(host, ".sim"), "-v")
	g, err := strconv.ParseUint(ver, 10, 64)
	if !ok || err != nil {
		return host, 0
	}
	return name, g
}

// invoked checks an invocation of the tool at host as it happens: the
// registration the leader has handled (its cursor) must not be newer than
// the one it invokes.
func (k *leadChecker) invoked(ctx context.Context, host string) {
	if err := k.scanEvents(ctx); err != nil {
		k.fail(InvLeadCache, "reading the chain's events: %v", err)
		return
	}
	name, g := toolOfHost(host)
	cursor := k.w.lloop.Core().Cursor()
	var handled uint64
	for _, r := range k.regs[name] {
		if r.cursor <= cursor {
			handled = r.gen
		}
	}
	if g < handled {
		k.fail(InvLeadCache, "the leader invoked %s (generation %d) after it handled the registration of generation %d (cursor %d)", name, g, handled, cursor)
	}
}

// tally counts the successful results of blocks into all and ours.
func (k *leadChecker) tally(blocks []chain.Block, all, ours map[string]int) {
	for _, bl := range blocks {
		for _, tx := range bl.Txs {
			if tx.Contract != devchain.WorkflowContract || tx.Method != devchain.WorkflowSubmitResult || tx.Status != chain.OutcomeSucceeded {
				continue
			}
			var a struct {
				Walk string `json:"walk"`
			}
			if json.Unmarshal(tx.Args, &a) != nil {
				continue
			}
			all[a.Walk]++
			if k.ours[string(tx.From)] {
				ours[a.Walk]++
			}
		}
	}
}

// blocks reads the blocks from..to.
func (k *leadChecker) blocks(ctx context.Context, from, to uint64) ([]chain.Block, error) {
	var out []chain.Block
	for from <= to {
		bs, err := k.w.dc.Blocks(ctx, from, to)
		if err != nil {
			return nil, err
		}
		if len(bs) == 0 {
			return nil, errors.New("sim: the chain returned no blocks")
		}
		out = append(out, bs...)
		from = bs[len(bs)-1].Height + 1
	}
	return out, nil
}

// scanResults counts the results on the canonical chain: the final blocks
// once, the blocks a reorg may still replace every time.
func (k *leadChecker) scanResults(ctx context.Context) error {
	final, head, err := k.finalHeight(ctx)
	if err != nil {
		return err
	}
	if k.finScanned < final {
		bs, err := k.blocks(ctx, k.finScanned+1, final)
		if err != nil {
			return err
		}
		k.tally(bs, k.finAll, k.finOurs)
		k.finScanned = final
	}
	k.tailAll, k.tailOur = map[string]int{}, map[string]int{}
	if head > final {
		bs, err := k.blocks(ctx, final+1, head)
		if err != nil {
			return err
		}
		k.tally(bs, k.tailAll, k.tailOur)
	}
	for _, m := range []map[string]int{k.finAll, k.tailAll} {
		for walk := range m {
			if n := k.finAll[walk] + k.tailAll[walk]; n > 1 {
				k.fail(InvLeadTwice, "walk %s has %d results on chain", walk, n)
			}
			if n := k.finOurs[walk] + k.tailOur[walk]; n > 1 {
				k.fail(InvLeadOurs, "the leader landed %d results for walk %s", n, walk)
			}
		}
	}
	return nil
}

// onChain reads a walk's recorded result (nil when none, or no such walk).
func (k *leadChecker) onChain(ctx context.Context, walk string) (*devchain.WalkResultRecord, error) {
	raw, err := k.w.dc.Call(ctx, devchain.WorkflowContract, "walk", json.RawMessage(`{"walk":"`+walk+`"}`))
	if errors.Is(err, chain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var wk devchain.Walk
	if err := json.Unmarshal(raw, &wk); err != nil {
		return nil, err
	}
	return wk.Result, nil
}

// scanStore checks the store: every final request indexed; every ended
// record final, Successful with our ok result on chain, Dead with a reason.
func (k *leadChecker) scanStore(ctx context.Context) error {
	st := k.w.st
	for _, walk := range sortedKeys(k.reqs) {
		if k.indexed[walk] {
			continue
		}
		_, err := st.LeaderEventByWalk(ctx, walk)
		switch {
		case errors.Is(err, store.ErrNotFound):
			k.fail(InvLeadLost, "walk %s was requested in a final block (event %d), the leader's cursor is %d, and the store has no record of it",
				walk, k.reqs[walk], k.w.lloop.Core().Cursor())
		case err != nil:
			return err
		default:
			k.indexed[walk] = true
		}
	}
	seen := map[string]bool{}
	for _, status := range []store.EventStatus{store.EventSuccessful, store.EventDead} {
		for after := int64(0); ; {
			recs, err := st.LeaderEvents(ctx, store.LeaderFilter{Status: status, After: after, Limit: 1000})
			if err != nil {
				return err
			}
			for _, r := range recs {
				after = r.ID
				seen[r.Walk] = true
				if err := k.endedRecord(ctx, r); err != nil {
					return err
				}
			}
			if len(recs) < 1000 {
				break
			}
		}
	}
	for _, walk := range sortedKeys(k.ended) {
		if !seen[walk] {
			r, err := st.LeaderEventByWalk(ctx, walk)
			k.fail(InvLeadFinal, "walk %s ended %s, and is now %s (%v)", walk, k.ended[walk].Status, r.Status, err)
		}
	}
	chans, err := st.LeaderChannels(ctx)
	if err != nil {
		return err
	}
	for _, c := range chans {
		if b := c.BlockedUntil.String(); !c.BlockedUntil.IsZero() && k.blocked[c.Index] != b {
			k.blocked[c.Index] = b
			k.w.res.Blocked++
		}
	}
	return nil
}

func (k *leadChecker) endedRecord(ctx context.Context, r store.LeaderEvent) error {
	if old, ok := k.ended[r.Walk]; ok {
		if old.Status != r.Status || old.ID != r.ID {
			k.fail(InvLeadFinal, "walk %s ended %s (record %d), and is now %s (record %d)", r.Walk, old.Status, old.ID, r.Status, r.ID)
		}
		return nil
	}
	k.ended[r.Walk] = r
	switch r.Status {
	case store.EventSuccessful:
		k.w.res.Successful++
		res, err := k.onChain(ctx, r.Walk)
		if err != nil {
			return err
		}
		if res == nil || !res.OK || !k.ours[string(res.Leader)] {
			k.fail(InvLeadSuccess, "walk %s is Successful, and the chain holds %+v", r.Walk, res)
		}
	case store.EventDead:
		k.w.res.Dead++
		if r.Error == "" {
			k.fail(InvLeadDead, "walk %s is Dead without a reason", r.Walk)
			return nil
		}
		res, err := k.onChain(ctx, r.Walk)
		if err != nil {
			return err
		}
		if res != nil && k.ours[string(res.Leader)] && !res.OK && res.Error != r.Error {
			k.fail(InvLeadDead, "walk %s is Dead for %q; the failure it reported on chain says %q", r.Walk, r.Error, res.Error)
		}
	default: // queued or active: not ended yet
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// check runs every invariant after a step.
func (w *leadWorld) check(ctx context.Context, step int) error {
	for _, s := range w.lloop.Core().CheckInvariants() {
		w.chk.fail(InvCore, "leader: %s", s)
	}
	if err := w.sloop.Core().CheckInvariants(); err != nil {
		w.chk.fail(InvCore, "sequencer: %v", err)
	}
	if err := w.chk.scanEvents(ctx); err != nil {
		return fmt.Errorf("sim: read events: %w", err)
	}
	if err := w.chk.scanResults(ctx); err != nil {
		return fmt.Errorf("sim: read chain: %w", err)
	}
	if err := w.chk.scanStore(ctx); err != nil {
		return fmt.Errorf("sim: read store: %w", err)
	}
	if len(w.chk.failures) == 0 {
		return nil
	}
	var ie *invariantError
	errors.As(w.chk.failures[0], &ie)
	return &LeadViolation{Seed: w.cfg.Seed, Step: step, Invariant: ie.inv, Detail: ie.detail}
}

// effectName names a leader effect kind.
func effectName(k leader.EffectKind) string {
	switch k {
	case leader.EffectExecute:
		return "execute"
	case leader.EffectReport:
		return "report"
	case leader.EffectCheck:
		return "check"
	}
	return fmt.Sprintf("effect(%d)", k)
}
