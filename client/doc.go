// Package client is the Go client of an ordo node's HTTP API: submit
// transaction intents to the sequencer (Send, or SendMany for up to 1,000 in
// one request, committed together) and read transactions, their history,
// queues and senders; create processors (seed 002), add message batches to
// them, tick them, and read their queues and callbacks (processor.go); list
// the leader's indexed requests and channels and retry a Dead one (seed
// 001, leader.go).
//
// A node outside dev mode knows its callers by bearer token: give the token
// of one of its principals with WithToken (New(url, nil,
// client.WithToken(tok))). A missing or unknown token is an *APIError with
// Code CodeUnauthenticated (401), a principal without the role the call
// needs CodeForbidden (403).
//
// The types the client reads and writes are the node's own (aliases of
// package apitypes, which names the types the node's handlers encode and
// decode): they cannot drift from the server, and the OpenAPI document
// (apispec/openapi.json) is generated from them. Intake and ProcessorSpec
// are the client's own forms of two request bodies. Every error the node
// answers is an *APIError carrying the HTTP status and the API's stable
// code:
//
//	var ae *client.APIError
//	if errors.As(err, &ae) && ae.Code == client.CodeTypeNotAllowed { ... }
//
// Invariants: the client never retries a request on its own (a transaction
// is retried by sending it again with the same idempotency key, which the node
// answers with the same record); every method takes ctx first and returns when
// it ends.
package client
