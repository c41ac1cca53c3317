// Package api is the node's HTTP+JSON API: the sequencer's intake and reads
// (transactions, their history, queues, senders), health and Prometheus
// metrics, the routes of engines (Options.Engines; DevchainRoutes serves
// the in-process devchain's API under the same address), all on one
// auth.Router, and CORS, which opens it to the browser origins an operator
// lists.
//
// Every route has a rule (internal/auth), checked before its handler runs:
// a request without a token, or with one the node does not know, is
// answered 401 unauthenticated (WWW-Authenticate: Bearer); a principal
// without the role 403 forbidden. The rule of each route is in brackets
// below: [submit] needs the role submit, [read] the role read unless the
// operator opens reads, [public] nothing.
//
// Routes of NewSequencerHandler:
//
//	POST /v1/transactions             [submit] {"queue","type","data","idempotencyKey"} → 201 Transaction (200 on a known idempotency key);
//	                                  a type listed in Options.TypeRoles only from one of its roles, else 403 type_forbidden
//	                                  (the contract-call type "call" from none, by default)
//	POST /v1/transactions             [submit] [intent, ...] (1 to MaxBatch) → 200 [BatchResult...], one per intent in order:
//	                                  {"status":201|200,"created","transaction"} or {"status","created":false,"error":{"code","message"}},
//	                                  status what the intent alone would have answered; an empty array 400 bad_json,
//	                                  over MaxBatch intents or Options.MaxBatchBody bytes (default 8 MiB) 413 too_large
//	GET  /v1/transactions/{uid}       [read] {"transaction","history"}
//	GET  /v1/transactions?queue=&state=&limit=&cursor=
//	                                  [read] {"transactions":[...],"next":"<cursor or empty>"}
//	GET  /v1/queues?limit=&cursor=    [read] {"queues":[Queue...],"next":"<cursor or empty>"}
//	GET  /v1/queues/{name}            [read] QueueStats
//	GET  /v1/senders                  [read] {"senders":[Sender...]}
//	GET  /healthz                     [public] {"status":"ok","chain":{"reachable","lastAnswerAgo","head","headAge","timeout"}};
//	                                  503 with status starting, stopped, or chain_unreachable (no answer
//	                                  from the chain for Options.ChainTimeout, default 30s)
//	GET  /readyz                      [public] {"status":"ready"} once the sequencer has loaded its store and
//	                                  started (Started); 503 {"status":"starting"} before, "stopped" after
//	GET  /metrics                     [read] Prometheus exposition (when a registry is set): it tells what
//	                                  the reads tell, so it needs what they need
//	the devchain's routes             [read] its reads, [admin] its dev routes (DevchainRoutes)
//
// Invariants:
//   - every route has a rule (engines register through auth.Router); a
//     request that fails it is answered 401 or 403 before its handler runs
//     and changes nothing;
//   - an intent is acknowledged (201 or 200) only after the sequencer has
//     committed it: the record in the response is durable;
//   - a known idempotency key never creates a second record: the answer is
//     200 with the existing record when the intent is the same (queue, type,
//     and data in canonical JSON), 409 naming what differs otherwise; keys
//     are the caller's principal's: another principal's record is never
//     answered nor named;
//   - a queue or key in the engines' namespaces is refused (422
//     reserved_name, sequencer.ReservedPrefixes);
//   - an array of intents is answered item by item, in order: an item the
//     API or the sequencer refuses gets its own error and stops no other;
//     the others are committed in one Submit (one store transaction) when
//     none is refused, else the refused ones are found by halves, never by
//     committing them; an item whose error may follow a commit (the
//     replicated intake's unavailable, not_replicated) is never submitted
//     again. Two items with one idempotency key: the second is the first's
//     repeat (200, its record) when the intents are the same, else 409;
//   - one intent's body is limited by Options.MaxBody, an array's by
//     Options.MaxBatchBody (the router reads that route's bodies up to the
//     larger, httpjson's Limit; every other route keeps MaxBody);
//   - a mutating request (POST, PUT, PATCH, DELETE) to any route of the
//     router (the sequencer's, the devchain's behind DevchainRoutes, every
//     engine's) is served only with Content-Type: application/json
//     (parameters allowed, a charset only utf-8), else 415
//     unsupported_media_type before its body is read (auth.Router checks
//     it, no route opts out): a page on another origin cannot send one
//     without a CORS preflight, and no response carries a CORS header
//     unless the operator lists origins (CORS);
//   - with Options.IntakeLimiter, intake past its principal's rate is
//     answered 429 rate_limited with Retry-After and takes nothing: a
//     single intent counts one, an array the intents the API accepted;
//   - bad input (malformed or oversized bodies, unknown fields, disallowed
//     types, bad query parameters) gets a 4xx and changes nothing; no input
//     makes a handler panic, and a panic that happens anyway is answered 500
//     in JSON;
//   - an error message quotes at most a short prefix of an input (64 bytes,
//     cut on a rune boundary, then "…" and its length), never all of an
//     oversized one;
//   - every response but /metrics (and a CORS preflight's 204) is JSON, and
//     every error is {"error":{"code","message"}} with a stable code:
//     bad_json (400), bad_query (400), unauthenticated (401), forbidden
//     (403), type_forbidden (403), too_large (413), invalid (422),
//     type_not_allowed (422), reserved_name (422), idempotency_conflict
//     (409), not_found (404),
//     route_not_found (404), method_not_allowed (405),
//     unsupported_media_type (415), rate_limited (429), internal (500).
package api
