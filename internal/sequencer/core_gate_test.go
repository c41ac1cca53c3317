package sequencer

import (
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// Gates (InputGate, CoreConfig.Gated): a closed queue takes no new
// transaction, lets the one in flight settle and hands its sender on; an
// opened one takes its next at once.

// gate steps an InputGate.
func (h *harness) gate(queue string, closed bool) Ready {
	h.t.Helper()
	h.c.Step(Gate(h.now, queue, closed))
	return h.step()
}

func TestCoreGateClosedQueueWaits(t *testing.T) {
	h := newHarness(t, testConfig(), acct("s1", 0))
	h.gate("q1", true)
	uids := h.enqueue("q1", typA, 2)
	h.none(EffectDispatch, "q1")
	h.wantState(uids[0], store.Waiting)
	h.wantFree("q1", "s1")
	h.gate("q1", false)
	h.ok("q1", "h1")
	if q := h.queue("q1"); q.TxUID != uids[0] {
		t.Fatalf("opened queue runs %q, want %q", q.TxUID, uids[0])
	}
}

func TestCoreGateInFlightSettlesThenHandsSenderOn(t *testing.T) {
	h := newHarness(t, testConfig(), acct("s1", 0))
	uids := h.enqueue("q1", typA, 2)
	h.ok("q1", "h1")
	h.gate("q1", true)       // in flight: it settles
	h.enqueue("q2", typA, 1) // waits in line for s1
	h.gate("q2", true)       // closed while in line
	q3 := h.enqueue("q3", typA, 1)
	h.newHead(Receipt{Hash: "h1", Success: true})
	h.heads(5)
	h.wantState(uids[0], store.Done)
	h.wantState(uids[1], store.Waiting)
	if q := h.queue("q3"); q.Sender != "s1" || q.TxUID != q3[0] {
		t.Fatalf("q3 bound to %q running %q, want s1 (handed on by the closed q2)", q.Sender, q.TxUID)
	}
	h.none(EffectDispatch, "q1")
	h.none(EffectDispatch, "q2")
}

func TestCoreGatedAtStart(t *testing.T) {
	cfg := testConfig()
	cfg.Gated = []string{"q1"}
	h := newHarness(t, cfg, acct("s1", 0))
	uids := h.enqueue("q1", typA, 1)
	h.none(EffectDispatch, "q1")
	h.wantState(uids[0], store.Waiting)
	h.gate("q1", false)
	h.ok("q1", "h1")
}
