package sequencer

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// The seed's five transaction types.
const (
	CreateClaimVotingAccount   = "CREATE_CLAIM_VOTING_ACCOUNT"
	SendClaimVote              = "SEND_CLAIM_VOTE"
	CreateVotingBatchesAccount = "CREATE_VOTING_BATCHES_ACCOUNT"
	ReceiveVotesBatch          = "RECEIVE_VOTES_BATCH"
	CommitAllVotingBatches     = "COMMIT_ALL_VOTING_BATCHES"
)

// RawTxnData is the seed's raw transaction data handed to a dispatcher.
type RawTxnData struct {
	UID  string          `json:"uid"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Sender is the seed's sender handed to a dispatcher: the bound account, its
// queue and the retries so far. ordo adds the nonce and fee the attempt must
// use, so that a retry is a replacement of an attempt that never landed.
type Sender struct {
	AccountID string `json:"accountId"`
	Queue     string `json:"queue"`
	Retries   int    `json:"retries"`
	Nonce     uint64 `json:"nonce"`
	Fee       uint64 `json:"fee"`
}

// TxnResult is the seed's baton passed between a dispatcher's calls.
type TxnResult struct {
	Hash  string          `json:"hash"`
	Done  json.RawMessage `json:"done"`
	Error json.RawMessage `json:"error"`
}

// Dispatcher mirrors the seed's AnyDispatcher: one per transaction type.
type Dispatcher interface {
	// Name is the transaction type the dispatcher handles.
	Name() string
	// MaxRetries is how many times a failed transaction of this type is
	// retried before it is FAILED.
	MaxRetries() int
	// Dispatch sends the transaction and returns its hash, or an error.
	Dispatch(ctx context.Context, txn RawTxnData, s Sender) (TxnResult, error)
	// OnSuccess runs once the transaction is DONE.
	OnSuccess(ctx context.Context, txn RawTxnData, r TxnResult, s Sender) (TxnResult, error)
	// OnFailure runs once the transaction is FAILED.
	OnFailure(ctx context.Context, txn RawTxnData, r TxnResult, s Sender) (TxnResult, error)
}

// Builder is implemented by in-process dispatchers that build the chain
// transaction for the sequencer to sign and send. The sequencer then commits
// the attempt's hash before sending it, which lets a restart settle the
// attempt by asking the chain.
type Builder interface {
	Build(ctx context.Context, txn RawTxnData, s Sender) (chain.Tx, error)
}

// Policy is the per-type retry policy.
type Policy struct {
	// MaxRetries before FAILED. Defaults to the dispatcher's MaxRetries.
	MaxRetries int
	// Delay between a failure and the retry. Defaults to 5s.
	Delay time.Duration
}

// FeePolicy sets fees: the first attempt pays max(Initial, the chain's minimum
// fee); each retry pays the previous fee raised by BumpPercent, at least by
// MinStep, capped by Max.
type FeePolicy struct {
	// Initial is the first attempt's fee. Defaults to 1000.
	Initial uint64
	// BumpPercent is the rise per retry. Defaults to 10 (the chain's
	// replacement rule needs at least 10).
	BumpPercent uint64
	// MinStep is the smallest rise per retry. Defaults to 100.
	MinStep uint64
	// Max caps every fee. Defaults to 1,000,000.
	Max uint64
}

func (f *FeePolicy) setDefaults() {
	if f.Initial == 0 {
		f.Initial = 1000
	}
	if f.BumpPercent == 0 {
		f.BumpPercent = 10
	}
	if f.MinStep == 0 {
		f.MinStep = 100
	}
	if f.Max == 0 {
		f.Max = 1_000_000
	}
}

// next returns the fee of the attempt after one that paid prev, given the
// chain's minimum fee now.
func (f FeePolicy) next(prev, minFee uint64) uint64 {
	fee := max(prev+(prev*f.BumpPercent+99)/100, prev+f.MinStep, minFee)
	if prev == 0 {
		fee = max(f.Initial, minFee)
	}
	return min(fee, f.Max)
}
