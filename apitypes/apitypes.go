package apitypes

import (
	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
)

// Errors: the body of every error answer.
type (
	// ErrorBody is {"error":{"code","message"}}.
	ErrorBody = httpjson.ErrorBody
	// ErrorDetail is an error's stable code and a sentence for people.
	ErrorDetail = httpjson.ErrorDetail
)

// The sequencer's routes.
type (
	// Transaction is a transaction's record (POST and GET
	// /v1/transactions).
	Transaction = store.Transaction
	// TxState is a transaction's state (WAITING, REVISION, RETRY, DONE,
	// FAILED).
	TxState = store.TxState
	// Attempt is one dispatch of a transaction.
	Attempt = store.Attempt
	// HistoryEntry is one state transition of a transaction.
	HistoryEntry = store.HistoryEntry
	// BatchResult is one intent's result in the answer to an array of
	// intents.
	BatchResult = api.BatchResult
	// TransactionResponse is the body of GET /v1/transactions/{uid}.
	TransactionResponse = api.TransactionResponse
	// ListResponse is the body of GET /v1/transactions.
	ListResponse = api.ListResponse
	// Queue is a queue's binding.
	Queue = store.Queue
	// QueuesResponse is the body of GET /v1/queues.
	QueuesResponse = api.QueuesResponse
	// QueueStats is a queue's binding and counts.
	QueueStats = store.QueueStats
	// QueueResponse is the body of GET /v1/queues/{name}.
	QueueResponse = api.QueueResponse
	// Sender is a sender and its next nonce.
	Sender = store.Sender
	// SendersResponse is the body of GET /v1/senders.
	SendersResponse = api.SendersResponse
	// CancelRequest is the body of POST /v1/senders/{id}/cancel.
	CancelRequest = api.CancelRequest
	// CancelResponse is its answer.
	CancelResponse = api.CancelResponse
	// HealthResponse is the body of GET /healthz and GET /readyz.
	HealthResponse = api.HealthResponse
	// Change is one event's data on GET /v1/changes: a state transition
	// of a record, with its cursor (id).
	Change = store.TxChange
	// SessionResponse is the body of GET /v1/session.
	SessionResponse = api.SessionResponse
	// StatsHistoryResponse is the body of GET /v1/stats/history.
	StatsHistoryResponse = api.StatsHistoryResponse
	// StatsSample is one of its samples.
	StatsSample = api.StatsSample
)

// The processors' routes.
type (
	// CreateSpec is the body of POST /v1/processors.
	CreateSpec = processor.CreateSpec
	// Processor is a processor's record.
	Processor = store.Processor
	// ProcCounts are a processor's counts.
	ProcCounts = store.ProcCounts
	// ProcessorView is the body of GET /v1/processors/{name}.
	ProcessorView = processor.ProcessorView
	// BatchSpec is the body of POST /v1/processors/{name}/batches.
	BatchSpec = processor.BatchSpec
	// Priority is a processor queue's priority (high, medium).
	Priority = processor.Priority
	// Msg is one message of a batch.
	Msg = processor.Msg
	// ActionsConfig says how a batch's messages run.
	ActionsConfig = processor.ActionsConfig
	// AtomicConfig runs a batch's actions all or none.
	AtomicConfig = processor.AtomicConfig
	// NonAtomicConfig runs a batch's actions one by one.
	NonAtomicConfig = processor.NonAtomicConfig
	// Action is one action of a batch.
	Action = processor.Action
	// RetryLogic is how often and how far apart a unit is retried.
	RetryLogic = processor.RetryLogic
	// RetryTimes is "indefinitely" or {"amount": n}.
	RetryTimes = processor.RetryTimes
	// RetryInterval is {"blocks": b} or {"duration": "30s"}.
	RetryInterval = processor.RetryInterval
	// CallbackConfirmation names the contract that confirms an action.
	CallbackConfirmation = processor.CallbackConfirmation
	// Expiration is when a batch expires.
	Expiration = processor.Expiration
	// AddResult is where an added batch went.
	AddResult = processor.AddResult
	// TickResult is what a tick did.
	TickResult = processor.TickResult
	// RemoveResult is the batch a remove took out.
	RemoveResult = processor.RemoveResult
	// ConfirmRequest is the body of POST
	// /v1/processors/{name}/confirmations.
	ConfirmRequest = processor.ConfirmRequest
	// ConfirmResult is its answer.
	ConfirmResult = processor.ConfirmResult
	// ProcBatch is a batch's record.
	ProcBatch = store.ProcBatch
	// BatchesPage is the body of GET
	// /v1/processors/{name}/queues/{priority}.
	BatchesPage = processor.BatchesPage
	// Callback is one batch outcome and its delivery.
	Callback = store.Callback
	// CallbacksPage is the body of GET /v1/processors/{name}/callbacks.
	CallbacksPage = processor.CallbacksPage
	// CallbackBody is what a callback carries.
	CallbackBody = processor.CallbackBody
	// Outcome is a batch's end.
	Outcome = processor.Outcome
	// Status is a batch outcome's status.
	Status = processor.Status
)

// The leader's routes.
type (
	// LeaderEvent is an on-chain request and its progress.
	LeaderEvent = store.LeaderEvent
	// EventStatus is a leader event's status.
	EventStatus = store.EventStatus
	// EventsPage is the body of GET /v1/leader/events.
	EventsPage = leader.EventsPage
	// ChannelView is a channel as GET /v1/leader/channels shows it.
	ChannelView = leader.ChannelView
)

// The distributed sequencer's and replicated queues' routes.
type (
	// PeersPage is the body of GET /v1/peers.
	PeersPage = ptx.PeersPage
	// PeerView is one peer of a PeersPage.
	PeerView = ptx.PeerView
	// ContractView is one privacy group of a PeersPage.
	ContractView = ptx.ContractView
	// SMMStatus is the body of GET /v1/smm.
	SMMStatus = smm.Status
	// SyncResponse is the body of POST /v1/queues/{name}/sync.
	SyncResponse = smm.SyncResponse
	// LogPage is the body of GET /v1/queues/{name}/log.
	LogPage = smm.LogPage
	// LogEntry is one entry of a LogPage.
	LogEntry = smm.LogEntry
)
