// Package apitest runs a whole node in-process behind its HTTP API, for the
// tests and examples of the API, the client and the command line: a SQLite
// store in a temporary directory, an in-process devchain, a sequencer node
// with the built-in zkApp dispatchers and dev accounts as senders, and the
// node's API (the sequencer's routes and the devchain's, on one auth.Router:
// open, as in dev mode, unless Options.Principals are given) on an httptest
// server.
//
// Invariants: Close stops everything Start began and removes its directory;
// nothing here is used outside tests.
package apitest
