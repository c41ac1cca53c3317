// Package apitest runs a whole node in-process behind its HTTP API, for the
// tests and examples of the API, the client and the command line: a SQLite
// store in a temporary directory, an in-process devchain, a sequencer node
// with the built-in zkApp dispatchers and dev accounts as senders, and the
// node's API (the sequencer's routes and the devchain's, on one auth.Router:
// open, as in dev mode, unless Options.Principals are given) on an httptest
// server.
//
// Every request through Node.Handler (and so Node.URL) and its answer are
// checked against the committed OpenAPI document (apispec.OpenAPI, with
// apidoc.Validator): an answer of a status the document does not give its
// route, or a body its schema does not allow, or a request answered 2xx
// with query parameters or a body the document does not allow, is a
// mismatch.
//
// Invariants: Close stops everything Start began and removes its
// directory, and returns every mismatch seen; nothing here is used outside
// tests and the document's generator.
package apitest
