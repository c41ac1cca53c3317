package sequencer

import (
	"encoding/json"
	"time"
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
	Fee uint64 `json:"fee,string"`
	// Gas is the gas limit of the attempt this one replaces at the same
	// nonce, which a replacement keeps (chain.GasEstimator); 0: none yet,
	// the dispatch estimates one on a chain with gas.
	Gas uint64 `json:"gas,omitempty,string"`
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

// Policy is the per-type retry policy.
type Policy struct {
	// MaxRetries before FAILED. Defaults to the dispatcher's MaxRetries.
	MaxRetries int
	// Delay between a failure and the retry. Defaults to 5s.
	Delay time.Duration
}
