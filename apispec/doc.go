// Package apispec holds the documents of the node's API: the OpenAPI 3.1
// document of its HTTP routes (openapi.json), served at GET /openapi.json.
//
// The document is generated (go run ./internal/apidoc/cmd/apidoc) from the
// node's route table and the Go wire types its handlers encode; a test in
// internal/apidoc fails when the committed copy is stale, and one fails
// when a route registered on the node's router is missing from it or a
// documented route is not registered. This package imports nothing, so
// that any package may serve or read the documents.
package apispec

import _ "embed"

// OpenAPI is the OpenAPI 3.1 document of the node's HTTP API (JSON).
//
//go:embed openapi.json
var OpenAPI []byte
