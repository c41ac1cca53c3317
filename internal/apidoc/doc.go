// Package apidoc describes the node's HTTP API as an OpenAPI 3.1 document
// and checks requests and answers against it.
//
// Ops is the route table: for each route of a node with every engine on,
// its query parameters, its request and response Go types (the very types
// the handlers decode and encode), and its error codes. Build turns the
// router's routes and rules and Ops into the document: each named struct
// type becomes a schema under components (by reflection, as encoding/json
// reads it), each rule a security requirement with its role (and the rule
// itself as x-ordo-rule), each error code a response of its status. The
// generator (cmd/apidoc, through package gen) writes it to
// apispec/openapi.json; the node serves it at GET /openapi.json.
//
// Validator checks an exchange (a request and its answer) against a
// document with JSON Schema 2020-12 (santhosh-tekuri/jsonschema/v6);
// apitest runs it on every request of the API tests.
//
// Invariants: Build fails on a route without an Op, an Op without a route,
// and a type that encodes itself without an entry in Overrides; a response
// schema allows no member its type does not write and requires every member
// it always writes; the document names the routes whose bodies it does not
// describe in x-ordo-exempt, with why.
package apidoc
