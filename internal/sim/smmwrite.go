package sim

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// The write path of the model: intake routed to the primary, its entry
// appended and pushed, acknowledgement, and dispatch in log order.

// intake takes an intent in at nd, as submitOne does.
func (w *smmWorld) intake(nd *smmNode, q string) string {
	if !nd.up {
		return "down"
	}
	set := nd.sets[q]
	for try := 0; ; try++ {
		p := w.node(set.Primary)
		if p != nd && (!p.up || !w.reachable(nd.id, p.id) || w.rng.Float64() < w.drop) {
			return "unavailable"
		}
		if p.sets[q].Primary == p.id {
			return w.submitLocal(p, q)
		}
		if try > 0 || p == nd {
			return "not primary"
		}
		set = w.refreshSet(nd, q)
	}
}

// submitLocal commits an intent at its primary p.
func (w *smmWorld) submitLocal(p *smmNode, q string) string {
	if !w.ensureAdopted(p, q) {
		return "unavailable: catch-up"
	}
	w.seq++
	id := fmt.Sprintf("i%d", w.seq)
	data, _ := json.Marshal(map[string]int{"seq": w.seq})
	it := &smmIntent{id: id, queue: q, seq: w.seq, holders: map[string]bool{}, deposed: w.deposed(p, q)}
	w.intents[id] = it
	w.intentOrder = append(w.intentOrder, id)
	w.res.Intents++
	e := w.appendChange(p, q, store.Change{Op: store.ChangeIntent, UID: id, Type: "sim", Data: data, At: w.clk.Now()})
	set := p.sets[q]
	w.pushAll(p, q)
	if w.cfg.AckAfter == 0 {
		w.ack(it)
		return "acked " + id
	}
	if len(set.Secondaries) < w.cfg.AckAfter {
		return "not replicated " + id // committed, refused an ack: too few secondaries
	}
	p.waiting = append(p.waiting, smmWait{id: id, queue: q, clock: e.Clock, deadline: w.clk.Now().Add(smmAckTimeout),
		secondaries: slices.Clone(set.Secondaries)})
	w.settleWaits(p, q)
	return "taken " + id
}

func (w *smmWorld) ack(it *smmIntent) {
	if !it.acked {
		it.acked = true
		w.res.Acked++
	}
}

// appendChange seals c at the head of p's log of q under p's set version.
func (w *smmWorld) appendChange(p *smmNode, q string, c store.Change) replog.Entry {
	log := p.logs[q]
	h := headOf(log)
	e := replog.Seal(q, h.Clock+1, p.sets[q].Version, h.Hash, store.EncodeChange(c))
	p.logs[q] = append(log, e)
	w.touch(p.id, q)
	w.holdEntries(p.id, []replog.Entry{e})
	return e
}

// pushAll is the manual sync after a commit: each secondary gets the
// entries after the clock it was last known to hold.
func (w *smmWorld) pushAll(p *smmNode, q string) {
	set := p.sets[q]
	for _, s := range set.Secondaries {
		after := p.acked[q][s]
		log := p.logs[q]
		if after > uint64(len(log)) {
			after = 0
		}
		w.send(smmMsg{from: p.id, to: s, kind: "push", queue: q, version: set.Version, entries: log[after:]})
	}
}

// noteAcked records that secondary s holds p's log of q up to clock, and
// acknowledges what waited for it.
func (w *smmWorld) noteAcked(p *smmNode, q, s string, clock uint64) {
	if p.acked[q] == nil {
		p.acked[q] = map[string]uint64{}
	}
	p.acked[q][s] = clock
	w.settleWaits(p, q)
}

// settleWaits acknowledges p's intents of q that AckAfter of the
// secondaries they were committed under hold (waitAcked: a node that is
// not one of them does not count).
func (w *smmWorld) settleWaits(p *smmNode, q string) {
	p.waiting = slices.DeleteFunc(p.waiting, func(wt smmWait) bool {
		if wt.queue != q || !w.clk.Now().Before(wt.deadline) {
			return false
		}
		held := 0
		for _, s := range wt.secondaries {
			if c, ok := p.acked[q][s]; ok && c >= wt.clock {
				held++
			}
		}
		if held >= w.cfg.AckAfter {
			w.ack(w.intents[wt.id])
			return true
		}
		return false
	})
}

// dispatchAll has every node holding itself q's primary dispatch.
func (w *smmWorld) dispatchAll(q string) string {
	var out []string
	for _, n := range w.nodes {
		if n.up && n.sets[q].Primary == n.id {
			if id := w.dispatch(n, q); id != "" {
				out = append(out, n.id+":"+id)
			}
		}
	}
	return fmt.Sprint(out)
}

// dispatch applies the oldest intent of n's log of q not shown final, and
// seals its ChangeFinal. "" when there is none, or when n has not adopted
// q since it became its primary or restarted (the model's records are its
// log; the driver's sequencer would also dispatch the records a restarted
// primary kept on disk: here they wait for its first adoption).
func (w *smmWorld) dispatch(n *smmNode, q string) string {
	if !n.adopted[q] {
		return ""
	}
	final := map[string]bool{}
	var open []string
	for _, e := range n.logs[q] {
		c, err := store.DecodeChange(e.Payload)
		if err != nil {
			continue // the checker reports a log that does not decode
		}
		if c.Op == store.ChangeFinal {
			final[c.UID] = true
		} else {
			open = append(open, c.UID)
		}
	}
	for _, id := range open {
		if final[id] {
			continue
		}
		if w.applied[id] > 0 && w.cfg.bug != smmBugNoNullifier {
			w.res.Duplicates++ // duplicate_intent: applied already
		} else {
			w.applied[id]++
			w.order[q] = append(w.order[q], smmApplied{id: id, by: n.id, seq: w.intents[id].seq, deposed: w.deposed(n, q)})
		}
		w.appendChange(n, q, store.Change{Op: store.ChangeFinal, UID: id, State: store.Done, At: w.clk.Now()})
		w.pushAll(n, q)
		return id
	}
	return ""
}
