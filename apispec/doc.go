// Package apispec holds the documents of the node's API: the OpenAPI 3.1
// document of its HTTP routes (openapi.json), served at GET /openapi.json,
// and the OpenRPC document of the ptx_ JSON-RPC methods of POST /rpc
// (openrpc.json), served at GET /openrpc.json and by the method
// rpc.discover.
//
// The documents are generated (go run ./internal/apidoc/cmd/apidoc) from
// the node's route table, its method list and the Go wire types its
// handlers encode; tests in internal/apidoc fail when a committed copy is
// stale, when a route registered on the node's router is missing from the
// OpenAPI document or a documented route is not registered, and when a
// method is missing from the OpenRPC document or a documented one is not
// served. This package imports nothing, so
// that any package may serve or read the documents.
package apispec

import _ "embed"

// OpenAPI is the OpenAPI 3.1 document of the node's HTTP API (JSON).
//
//go:embed openapi.json
var OpenAPI []byte

// OpenRPC is the OpenRPC document of the ptx_ methods of POST /rpc (JSON).
//
//go:embed openrpc.json
var OpenRPC []byte
