// Package apitypes names the wire types of the node's HTTP API: the
// request and response bodies its handlers decode and encode, which the Go
// client (package client) decodes and encodes too, so that the two share
// one set of types and cannot drift apart.
//
// Each name here is an alias of the type the server itself uses (in the
// store, the sequencer's API, and the engines' route files); the OpenAPI
// document (apispec/openapi.json) is generated from those same types, so
// the client, the server and the document agree by construction.
//
// Invariants: every name is an alias (=), never a copy; a type added to a
// route's request or response is named here when the client reads or
// writes it.
package apitypes
