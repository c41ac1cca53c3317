package sequencer_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// A node with a queue pinned to its second sender: every attempt of the
// pinned queue is that sender's, and the unpinned queues never use it.
func TestNodePins(t *testing.T) {
	var pinned string
	r := newRig(t, rigOptions{senders: 3, blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) {
		pinned = string(c.Senders[1].ID)
		c.Pins = map[string]string{"q-pinned": pinned}
	}})
	var txs []store.Transaction
	for i := range 4 {
		for _, q := range []string{"q-pinned", "q-a", "q-b"} {
			txs = append(txs, r.submit(q, typ, fmt.Sprintf(`{"zkapp":"%s-%d"}`, q, i)))
		}
	}
	for _, tx := range txs {
		got := r.waitState(tx.UID, store.Done)
		for _, a := range got.Attempts {
			if (tx.Queue == "q-pinned") != (a.Sender == pinned) {
				t.Fatalf("%s on queue %s: attempt %d by sender %s (pinned sender %s)", tx.UID, tx.Queue, a.N, a.Sender, pinned)
			}
		}
	}

	// A pin naming a sender the node does not have is refused.
	cfg := r.cfg
	cfg.Pins = map[string]string{"q-pinned": "not-a-sender"}
	if _, err := sequencer.NewNode(cfg); !errors.Is(err, sequencer.ErrPinUnknownSender) {
		t.Fatalf("NewNode with a pin to an unknown sender: %v, want ErrPinUnknownSender", err)
	}
}
