package distseq

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// SeqQueuePrefix is the prefix of the sequencer queues dispatches go to:
// "distseq/<contract>". The node's sequencer gives it a pipeline policy
// (sequencer.Pipeline) so chained transactions share a block.
const SeqQueuePrefix = "distseq/"

// SeqType is the sequencer type of a dispatch: a contract call sent at
// most once (a revert is FAILED at once, with the chain's reason, and goes
// back to the protocol, not into a fee-raising retry).
const SeqType = "call-once"

// SequencerSubmitter is the Submitter through the node's sequencer: a
// dispatch is a `call-once` privacygroup.confirm on queue
// "distseq/<contract>" whose idempotency key is the transaction id and
// the call's hash (a resumed dispatch is the same sequencer transaction, a
// new assembly a new one). Wire Finished as (part of) the sequencer's
// OnFinish; each outcome goes to Out.
type SequencerSubmitter struct {
	// Sequencer takes the dispatches; Store is its store (to read a
	// failure's reason).
	Sequencer *sequencer.Node
	Store     store.Store
	// Out receives each outcome (Node.Dispatched in production).
	Out func(InputDispatched)
	// Height reports the chain height the outcome is known at (a revert
	// is held until the node's indexer passes it).
	Height func() uint64

	mu    sync.Mutex
	byUID map[string]string
}

var _ Submitter = (*SequencerSubmitter)(nil)

// Submit hands a dispatch to the sequencer.
func (s *SequencerSubmitter) Submit(ctx context.Context, contract, txID string, call []byte) error {
	data, _ := json.Marshal(dispatch.Call{Contract: devchain.PrivacyGroupContract, Method: devchain.PrivacyConfirm, Args: call})
	h := sha256.Sum256(call)
	key := txID + "/" + hex.EncodeToString(h[:8])
	res, err := s.Sequencer.Submit(ctx, []sequencer.Intake{{Queue: SeqQueuePrefix + contract, Type: SeqType, Data: data,
		IdempotencyKey: key, Principal: sequencer.PrincipalDistseq}})
	if err != nil {
		return fmt.Errorf("distseq: submit %s: %w", txID, err)
	}
	tx := res[0].Transaction
	s.mu.Lock()
	if s.byUID == nil {
		s.byUID = map[string]string{}
	}
	s.byUID[tx.UID] = txID
	s.mu.Unlock()
	if tx.State == store.Done || tx.State == store.Failed {
		s.Finished(tx.UID, tx.State, 0)
	}
	return nil
}

// Finished is the sequencer's OnFinish for dispatches: it passes the
// outcome on (a transaction the submitter never saw, from before a
// restart, is known by its idempotency key; others are ignored).
func (s *SequencerSubmitter) Finished(uid string, st store.TxState, _ uint64) {
	s.mu.Lock()
	txID := s.byUID[uid]
	delete(s.byUID, uid)
	s.mu.Unlock()
	rec, err := s.Store.Get(context.Background(), uid)
	if txID == "" {
		if err != nil || !strings.HasPrefix(rec.Queue, SeqQueuePrefix) {
			return
		}
		txID, _, _ = strings.Cut(rec.IdempotencyKey, "/")
	}
	out := InputDispatched{TxID: txID, OK: st == store.Done}
	if s.Height != nil {
		out.Height = s.Height()
	}
	if !out.OK {
		out.Reason = rec.Error
		// devchain's reason, or PrivacyGroup's custom error on an EVM chain
		if strings.Contains(rec.Error, ReasonIntentConfirmed) || strings.Contains(rec.Error, "IntentAlreadyConfirmed(") {
			out.Reason = ReasonIntentConfirmed
		}
	}
	s.Out(out)
}
