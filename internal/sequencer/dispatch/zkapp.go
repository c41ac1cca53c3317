package dispatch

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// ZkAppDispatcher is the built-in dispatcher of the seed's five types: each is
// a call on devchain's zkapp contract, whose account is the queue (or
// data.zkapp when set), with the ordo uid in the memo.
//
//	CREATE_CLAIM_VOTING_ACCOUNT    deploy {zkapp, state: {kind: "claim", ...data}}
//	SEND_CLAIM_VOTE                append {zkapp, key: "votes", value: data}
//	CREATE_VOTING_BATCHES_ACCOUNT  deploy {zkapp, state: {kind: "batches", ...data}}
//	RECEIVE_VOTES_BATCH            append {zkapp, key: "batches", value: data}
//	COMMIT_ALL_VOTING_BATCHES      set {zkapp, key: "committed", value: data}
type ZkAppDispatcher struct {
	typ     string
	retries int
	chain   chain.Chain
	keys    func(string) chain.Key
}

// NewZkAppDispatcher returns the built-in dispatcher for typ. keys finds a
// sender's key for direct Dispatch calls (the sequencer itself signs through
// Build).
func NewZkAppDispatcher(typ string, maxRetries int, c chain.Chain, keys func(string) chain.Key) (*ZkAppDispatcher, error) {
	if _, ok := zkMethods[typ]; !ok {
		return nil, fmt.Errorf("no built-in dispatcher for type %q", typ)
	}
	return &ZkAppDispatcher{typ: typ, retries: maxRetries, chain: c, keys: keys}, nil
}

// BuiltinTypes are the types with a built-in dispatcher.
func BuiltinTypes() []string {
	return []string{sequencer.CreateClaimVotingAccount, sequencer.SendClaimVote, sequencer.CreateVotingBatchesAccount, sequencer.ReceiveVotesBatch, sequencer.CommitAllVotingBatches}
}

var zkMethods = map[string]struct{ method, key, kind string }{
	sequencer.CreateClaimVotingAccount:   {"deploy", "", "claim"},
	sequencer.SendClaimVote:              {"append", "votes", ""},
	sequencer.CreateVotingBatchesAccount: {"deploy", "", "batches"},
	sequencer.ReceiveVotesBatch:          {"append", "batches", ""},
	sequencer.CommitAllVotingBatches:     {"set", "committed", ""},
}

// zkAppDataSchema is what the built-in types' data must be: a JSON object,
// whose optional zkapp names the account (else the queue's name is used).
var zkAppDataSchema = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {"zkapp": {"type": "string", "minLength": 1, "maxLength": 128}}
}`)

// DataSchema implements sequencer.DataSchema: intake refuses data the
// dispatcher could never build.
func (d *ZkAppDispatcher) DataSchema() json.RawMessage { return zkAppDataSchema }

// Name returns the type.
func (d *ZkAppDispatcher) Name() string { return d.typ }

// MaxRetries returns the configured retries.
func (d *ZkAppDispatcher) MaxRetries() int { return d.retries }

// Build makes the unsigned chain transaction for an attempt.
func (d *ZkAppDispatcher) Build(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (chain.Tx, error) {
	m := zkMethods[d.typ]
	var data map[string]json.RawMessage
	if len(txn.Data) > 0 {
		if err := json.Unmarshal(txn.Data, &data); err != nil {
			return chain.Tx{}, fmt.Errorf("%s: data must be a JSON object: %w", d.typ, err)
		}
	}
	zk := s.Queue
	if v, ok := data["zkapp"]; ok {
		if err := json.Unmarshal(v, &zk); err != nil {
			return chain.Tx{}, fmt.Errorf("%s: data.zkapp must be a string", d.typ)
		}
	}
	args := map[string]any{"zkapp": zk}
	switch m.method {
	case "deploy":
		state := map[string]json.RawMessage{}
		for k, v := range data {
			if k != "zkapp" {
				state[k] = v
			}
		}
		state["kind"] = json.RawMessage(fmt.Sprintf("%q", m.kind))
		args["state"] = state
	default:
		args["key"], args["value"] = m.key, json.RawMessage(orEmpty(txn.Data))
	}
	b, err := json.Marshal(args)
	if err != nil {
		return chain.Tx{}, err
	}
	return chain.Tx{From: chain.Address(s.AccountID), Nonce: s.Nonce, Fee: s.Fee, Contract: "zkapp", Method: m.method, Args: b, Memo: txn.UID}, nil
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// Dispatch builds, signs and sends the transaction.
func (d *ZkAppDispatcher) Dispatch(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (sequencer.TxnResult, error) {
	tx, err := d.Build(ctx, txn, s)
	if err != nil {
		return sequencer.TxnResult{}, sequencer.Permanent(err)
	}
	return sendSigned(ctx, d.chain, d.keys, tx, s.AccountID)
}

// OnSuccess reads the zkApp's state into the result's done.
func (d *ZkAppDispatcher) OnSuccess(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	zk := s.Queue
	var data struct {
		ZkApp string `json:"zkapp"`
	}
	if json.Unmarshal(txn.Data, &data) == nil && data.ZkApp != "" {
		zk = data.ZkApp
	}
	args, _ := json.Marshal(map[string]string{"zkapp": zk})
	st, err := d.chain.Call(ctx, "zkapp", "get", args)
	if err != nil {
		return r, err
	}
	r.Done = st
	return r, nil
}

// OnFailure records the failure in the result's error: the uid, the retries
// made and the reason the sequencer gives.
func (d *ZkAppDispatcher) OnFailure(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	var given struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(r.Error, &given) // the sequencer's failure reason, when given
	b, _ := json.Marshal(map[string]any{"uid": txn.UID, "retries": s.Retries, "reason": given.Reason})
	r.Error = b
	return r, nil
}
