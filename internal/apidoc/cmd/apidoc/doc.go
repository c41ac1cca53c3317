// Command apidoc writes the node's API documents into apispec: run it
// from the repository's root after changing a route or a wire type,
//
//	go run ./internal/apidoc/cmd/apidoc
//
// and commit apispec/openapi.json and apispec/openrpc.json;
// internal/apidoc's tests fail while either is stale.
//
// Invariants: it writes only apispec/openapi.json and apispec/openrpc.json,
// and writes the same bytes for the same routes and types (the documents
// are deterministic, so the staleness tests can compare bytes).
package main
