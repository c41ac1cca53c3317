package distseq

import (
	"bytes"
	"encoding/hex"
	"fmt"
)

// The endorser's record (issue 24, "every endorser checks ownership before
// it signs"): the outputs of the transactions this node endorsed and that
// are not confirmed yet. A speculative input (an output of an assembled
// transaction not yet confirmed, which this node does not hold yet) is
// judged on this record, the creation this node signed (its sender signed
// it too), never on the coordinator's word alone. An input this node
// neither holds nor endorsed the creation of is not answered yet: the
// coordinator's resend is, once this node holds the state (its creator
// confirmed, the distribution read back) or endorsed its creation.
//
// The record is memory, bounded per contract by CoreConfig.EndorsedMemory
// (the oldest signed is forgotten first), and dies with the contract's
// in-memory state. A transaction's outputs are forgotten once this node
// holds them or they are spent on chain; the whole transaction once this
// node endorses another assembly of it (the coordinator dropped the
// earlier one), the chain confirms another assembly of it, or a state it
// spends is spent on chain by another transaction (it can never land;
// nor can what spends its outputs). Forgetting early only delays an
// endorsement until the state is held.

// endorsedTx is the latest assembly of one transaction this node signed.
type endorsedTx struct {
	spends  []string
	creates []StateRef // the outputs not yet held or spent
	digest  string     // Domain.Digest, hex, as confirm events carry it
	seq     uint64
}

// endorsedRecord is a contract's record.
type endorsedRecord struct {
	txs   map[string]*endorsedTx // by transaction id
	outs  map[string]string      // output state id -> its transaction
	order []endorsedAt           // signing order, for eviction (stale entries skipped)
	seq   uint64
}

type endorsedAt struct {
	txID string
	seq  uint64
}

// remember records the outputs of the assembly of txID this node has just
// signed, in place of an earlier assembly of it.
func (c *Core) remember(k *contract, txID string, a Assembly, digest [32]byte) {
	r := k.endorsed
	if r == nil {
		r = &endorsedRecord{txs: map[string]*endorsedTx{}, outs: map[string]string{}}
		k.endorsed = r
	}
	r.forgetTx(txID)
	if len(a.Creates) == 0 {
		return // nothing to judge later spends on
	}
	r.seq++
	t := &endorsedTx{spends: append([]string(nil), a.Spends...), digest: hex.EncodeToString(digest[:]), seq: r.seq}
	for _, s := range a.Creates {
		s.CreatedBy = txID
		t.creates = append(t.creates, s)
	}
	r.txs[txID] = t
	for _, s := range a.Creates {
		if k.states[s.ID] == nil { // held already: its own copy judges
			r.outs[s.ID] = txID
		}
	}
	if !r.recorded(txID, t) {
		delete(r.txs, txID)
		return
	}
	r.order = append(r.order, endorsedAt{txID: txID, seq: t.seq})
	for len(r.txs) > c.cfg.EndorsedMemory && len(r.order) > 0 {
		e := r.order[0]
		r.order = r.order[1:]
		if t := r.txs[e.txID]; t != nil && t.seq == e.seq {
			r.forgetTx(e.txID)
		}
	}
	if len(r.order) > 2*max(len(r.txs), 16) {
		live := r.order[:0]
		for _, e := range r.order {
			if t := r.txs[e.txID]; t != nil && t.seq == e.seq {
				live = append(live, e)
			}
		}
		r.order = live
	}
}

// forgetTx drops a transaction and its outputs.
func (r *endorsedRecord) forgetTx(txID string) {
	t := r.txs[txID]
	if t == nil {
		return
	}
	for _, s := range t.creates {
		if r.outs[s.ID] == txID {
			delete(r.outs, s.ID)
		}
	}
	delete(r.txs, txID)
}

// forgetOutput drops one output (held or spent now); a transaction with
// no output left goes too.
func (r *endorsedRecord) forgetOutput(id string) {
	txID, ok := r.outs[id]
	if !ok {
		return
	}
	delete(r.outs, id)
	if t := r.txs[txID]; t != nil && !r.recorded(txID, t) {
		delete(r.txs, txID)
	}
}

// recorded reports whether an output of t is still in the record.
func (r *endorsedRecord) recorded(txID string, t *endorsedTx) bool {
	for _, s := range t.creates {
		if r.outs[s.ID] == txID {
			return true
		}
	}
	return false
}

// endorsedConfirmed updates the record for a confirm event: the states it
// spends are gone; an endorsed transaction that spends one of them (other
// than the one confirmed), or whose confirmed assembly is not the one this
// node signed, never lands, nor does what spends its outputs.
func (c *Core) endorsedConfirmed(k *contract, e ChainEvent) {
	r := k.endorsed
	if r == nil {
		return
	}
	dead := map[string]bool{}
	if t := r.txs[e.TxID]; t != nil && t.digest != e.Digest {
		for _, s := range t.creates {
			dead[s.ID] = true
		}
		r.forgetTx(e.TxID)
	}
	for _, id := range e.Spends {
		r.forgetOutput(id)
		dead[id] = true
	}
	for len(dead) > 0 {
		next := map[string]bool{}
		for txID, t := range r.txs {
			if txID == e.TxID {
				continue
			}
			for _, s := range t.spends {
				if dead[s] {
					for _, o := range t.creates {
						next[o.ID] = true
					}
					r.forgetTx(txID)
					break
				}
			}
		}
		dead = next
	}
}

// endorsedOutput returns the output id as this node endorsed its creation.
func (r *endorsedRecord) endorsedOutput(id string) (StateRef, bool) {
	if r == nil {
		return StateRef{}, false
	}
	t := r.txs[r.outs[id]]
	if t == nil {
		return StateRef{}, false
	}
	for _, s := range t.creates {
		if s.ID == id {
			return s, true
		}
	}
	return StateRef{}, false
}

// checkEndorsed: the record is bounded, and every output in it belongs to
// a recorded transaction that creates it and is not held.
func (c *Core) checkEndorsed(k *contract) error {
	r := k.endorsed
	if r == nil {
		return nil
	}
	if len(r.txs) > c.cfg.EndorsedMemory {
		return fmt.Errorf("%d endorsed transactions remembered, over %d", len(r.txs), c.cfg.EndorsedMemory)
	}
	for id, txID := range r.outs {
		if _, ok := r.endorsedOutput(id); !ok {
			return fmt.Errorf("endorsed output %s filed under %s, which does not create it", id, txID)
		}
		if k.states[id] != nil {
			return fmt.Errorf("endorsed output %s is held and still remembered", id)
		}
	}
	for txID, t := range r.txs {
		if !r.recorded(txID, t) {
			return fmt.Errorf("endorsed transaction %s remembered with no output", txID)
		}
	}
	return nil
}

// sameState reports whether two copies of a state agree on its owner and
// data.
func sameState(a, b StateRef) bool {
	return a.ID == b.ID && a.Owner == b.Owner && bytes.Equal(a.Data, b.Data)
}
