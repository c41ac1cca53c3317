// Package httpjson is the plumbing shared by ordo's HTTP+JSON APIs (the
// node's sequencer API in internal/api and the devchain's API in
// internal/chain/devchain): routing with JSON answers for unknown routes and
// wrong methods, panic recovery, a value-or-error handler adapter, JSON and
// error writing, request body limits, and strict decoding of request bodies.
//
// Each API keeps its own routes, its own error codes beyond the few defined
// here, and its own mapping from codes to HTTP statuses (Options.Status); a
// Server only applies them.
//
// Invariants:
//   - every error response is application/json with the body
//     {"error":{"code","message"}}: a stable code and a sentence for people;
//   - the codes this package produces always have the same status:
//     bad_json 400, too_large 413, route_not_found 404, method_not_allowed
//     405 (with an Allow header), internal 500;
//   - an error that is neither an *Error nor given a code by Options.Code is
//     answered 500 "internal error" and logged, never shown to the client;
//     a panic in a handler is answered the same way (http.ErrAbortHandler
//     excepted);
//   - a request body is read at most Options.MaxBody bytes; a longer one is
//     too_large (413);
//   - bad input never changes state: ReadBody, ReadJSON and DecodeStrict
//     reject it before a handler acts on it (unknown fields, fields that
//     differ from the documented names only in case, duplicate fields and
//     data after the value are bad_json), so a handler that decodes first
//     and acts after leaves nothing behind on a 4xx;
//   - every JSON response carries Content-Type and Content-Length, and is
//     written without HTML escaping.
package httpjson
