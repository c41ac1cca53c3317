// Package httpjson is the plumbing shared by ordo's HTTP+JSON APIs (the
// node's sequencer API in internal/api and the devchain's API in
// internal/chain/devchain): routing with JSON answers for unknown routes and
// wrong methods, panic recovery, a value-or-error handler adapter, JSON and
// error writing, request body limits, strict decoding of request bodies, and
// the Content-Type rule of mutating requests (RequireJSON, JSONOnly).
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
//     405 (with an Allow header), unsupported_media_type 415, internal 500;
//   - a mutating request (POST, PUT, PATCH, DELETE) to a route wrapped with
//     JSONOnly, or refused by RequireJSON, without exactly one
//     Content-Type: application/json (parameters allowed, a charset only
//     utf-8) is answered 415 unsupported_media_type before its body is read:
//     one rule for every API, so a page on another origin cannot post a form
//     or a text body to a server on localhost;
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
