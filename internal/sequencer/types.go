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
	// UID is the transaction record's id ("tx_..."), given at intake; the
	// built-in dispatcher puts it in the chain transaction's memo.
	UID string `json:"uid"`
	// Type is the seed's transaction type (SEND_CLAIM_VOTE, ...): it picks
	// the dispatcher.
	Type string `json:"type"`
	// Data is the transaction's data as submitted at intake, untouched.
	Data json.RawMessage `json:"data"`
}

// Sender is the seed's sender handed to a dispatcher: the bound account, its
// queue and the retries so far. ordo adds the nonce and fee the attempt must
// use, so that a retry is a replacement of an attempt that never landed.
type Sender struct {
	// AccountID is the sender's chain address, the account that signs and
	// pays for the attempt.
	AccountID string `json:"accountId"`
	// Queue is the queue the sender is bound to, the transaction's queue.
	Queue string `json:"queue"`
	// Retries is how many times the transaction has been retried so far (0
	// on the first dispatch).
	Retries int `json:"retries"`
	// Nonce is the account nonce the attempt must use (ordo's addition).
	Nonce uint64 `json:"nonce"`
	// Fee is the fee the attempt must pay (ordo's addition): it rises with
	// each retry, per the FeePolicy.
	Fee uint64 `json:"fee"`
}

// TxnResult is the seed's baton passed between a dispatcher's calls.
type TxnResult struct {
	// Hash is the chain transaction's hash: Dispatch returns it, and the
	// hooks get the hash of the attempt that was included (OnSuccess) or of
	// the last attempt that has one (OnFailure).
	Hash string `json:"hash"`
	// Done is what OnSuccess records about the finished transaction (the
	// built-in dispatcher: the zkApp's state); stored in the record's result.
	Done json.RawMessage `json:"done"`
	// Error is what OnFailure records about the failed transaction; stored
	// in the record's result.
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

// SetDefaults fills every unset field with its default.
func (f *FeePolicy) SetDefaults() {
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

// setDefaults is SetDefaults.
// next returns the fee of the attempt after one that paid prev, given the
// chain's minimum fee now.
func (f FeePolicy) next(prev, minFee uint64) uint64 {
	fee := max(prev+(prev*f.BumpPercent+99)/100, prev+f.MinStep, minFee)
	if prev == 0 {
		fee = max(f.Initial, minFee)
	}
	return min(fee, f.Max)
}
