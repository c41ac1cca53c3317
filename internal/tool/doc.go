// Package tool is the protocol between the leader (seed 001) and the tools
// it invokes, in the manner of Talus's Nexus toolkit: a tool is an HTTP
// server with three routes, the leader signs each invocation with its key,
// and a tool may demand that signature from an allowed leader. It holds the
// client the leader's execution engine calls (Client's Invoke, Meta and Health; Invoke
// for DefaultClient), the
// signature (Sign, Verify, Verifier), the server that serves a Tool
// (NewServer) and two example tools (textstats, arith) behind
// `ordo tool serve --example NAME`.
//
// It implements the seed's "invoke tool" and "tool finished and returned
// output data" steps of the execution engine, and issue 9's "Tools" section
// (signed invocation and the example tool server).
//
// # The protocol
//
//	GET  /meta    200 {"name","description","inputSchema","outputSchema","version"}
//	GET  /health  200 {"status":"ok"}; 503 {"error":{...}} when the tool says it is unhealthy
//	POST /invoke  body {"input": <any JSON>}
//	              200 {"output": <any JSON>}            success
//	              4xx {"error":{"code","message"}}     a refused request: fatal for the caller
//	              5xx {"error":{"code","message"}}     a failure: the caller may retry
//
// The schemas are JSON Schemas (draft 2020-12 unless they say otherwise),
// self-contained: a reference to another file or URL is refused, never
// fetched (they come from a registry anyone may write to).
// A server checks every input against its input schema (422 invalid_input,
// naming the failing field) and every output against its output schema (500
// bad_output: a tool that breaks its own promise is a bug, logged) before
// answering. Request bodies are strict JSON (unknown or duplicate fields are
// 400 bad_json) of at most 1 MiB by default, posted as application/json.
//
// The codes: bad_json 400, unsigned 401, bad_signature 401, stale 401,
// replayed 401, unknown_leader 403, route_not_found 404, method_not_allowed
// 405, too_large 413, unsupported_media_type 415, invalid_input 422,
// tool_failed 500, bad_output 500, internal 500, unhealthy 503.
//
// # Signed invocation
//
// The leader signs each POST /invoke with its account's key, in three
// headers:
//
//	Ordo-Leader:    the leader's id, its chain address
//	Ordo-Timestamp: unix seconds, decimal
//	Ordo-Signature: lowercase hex of the signature over the signing string
//	                "ordo-invoke-v1\n" + method + "\n" + path + "\n" + timestamp + "\n" + hex(sha256(body))
//
// The leader's key decides the scheme, and a verifier reads it from the
// address:
//
//	ed25519 (devchain)    Ordo-Leader: lowercase hex of the public key (64 digits)
//	                      Ordo-Signature: 64 bytes, ed25519 over the signing string
//	secp256k1 (EVM chain) Ordo-Leader: "0x" + 40 lowercase hex digits
//	                      Ordo-Signature: 65 bytes [R||S||V], no 0x, over
//	                      keccak256("\x19Ethereum Signed Message:\n" + decimal length + signing string)
//
// The secp256k1 hash is EIP-191's personal message hash, so a wallet's
// personal_sign of the signing string is a valid signature (V 27 or 28).
// A 0x leader's signature must recover to exactly that address. V must be
// 27 or 28 and S in the lower half of the curve order. So each request has
// one valid signature per leader in either scheme, and the replay memory
// (keyed by the signature) cannot be passed with a malleated copy.
//
// The path is the request's escaped URL path (the query is not signed, and a
// server ignores it). A server that requires a leader (RequireLeader) refuses
// a request without the three headers (unsigned), from a leader it does not
// list (unknown_leader), whose timestamp is more than the window (5 minutes by
// default) away from its clock (stale: the replay of an old request), whose
// signature does not verify (bad_signature: a changed method, path, timestamp
// or body), or whose signature it has already accepted within the window
// (replayed: the same signed request sent twice).
//
// # Errors at the client
//
// A Client's Invoke, Meta and Health return an *InvokeError that says whether the
// caller may retry: a timeout, a refused or broken connection, a 5xx, a 408,
// a 429 and a 401 replayed (the same second's signature; a new one will
// differ) are retriable; any other 4xx is fatal, and so is a 2xx whose body
// is not exactly {"output": ...} (the tool broke the protocol) and a
// redirect (never followed: the signature names the path). With an HTTP
// client from internal/egress (the node's), a URL resolving to an address
// the egress policy refuses is never called: fatal, egress_refused.
//
// Invariants:
//   - a server answers every request in JSON; a 200 from /invoke carries
//     output that matches the tool's output schema, produced from input
//     that matched its input schema;
//   - with RequireLeader, a tool is never invoked for a request that is not
//     signed by a listed leader within the window, nor twice for the same
//     signed request while its timestamp is within the window;
//   - library code reads no clock of its own: the signing time and the
//     verifying time are parameters (Sign, Verify, Invoke) or a clock.Clock
//     (the server's, clock.Real by default).
package tool
