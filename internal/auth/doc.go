// Package auth is the node's principals and access, a kernel package every
// engine's API uses (issue 8, "Principals and access"; the processor seed's
// Authorization principal, seeds/002, is one of its principals).
//
// A principal is a name with roles, configured on the node with a bearer
// token (or the SHA-256 of one): admin (manages the node and implies every
// role), submit (sequencer intake), read (the node's reads, unless the
// operator sets openReads), and any other role name an engine checks. A
// caller presents Authorization: Bearer <token>. In open (dev) mode every
// caller is the principal "dev" with role admin.
//
// A Router wraps an httpjson.Server: every route is registered with a Rule
// (Public, Read, Need(role), Authenticated, OpenOr(flag, rule)), checked
// before its handler runs, so a route cannot exist without one; Routes lists
// them for the table test that checks each. Engines register their routes
// on the node's Router through api.Routes.
//
// A Limiter limits each principal's intake with a token bucket of its own
// on an injected clock (the node's api.intakeLimit); the intake routes take
// their intents from the Router's (IntakeLimiter) and answer 429
// rate_limited with Retry-After past it.
//
// Token comparison. Authenticate hashes the presented token with SHA-256
// and compares the hash with every configured hash using
// crypto/subtle.ConstantTimeCompare, without stopping at a match (the index
// found is kept with ConstantTimeSelect). A map from hash to principal
// would also be safe in practice (its timing depends on the SHA-256 of the
// presented token, which tells an attacker nothing about a configured
// token), but the loop states the property plainly, needs no argument
// about the map's hash function, and costs nothing at the handful of
// principals a node has.
//
// Invariants:
//   - only the SHA-256 of each token is kept by an Authenticator; a node
//     keeps its config Hashed; PrincipalConfig and Config print and log
//     (String, GoString, LogValue) without their tokens, and no message of
//     this package quotes a token;
//   - a request to a route whose rule it fails is answered 401
//     unauthenticated (with WWW-Authenticate: Bearer: no token, a malformed
//     header, an unknown token) or 403 forbidden (a known principal without
//     the role, naming it) and never reaches the route's handler, so it
//     changes nothing;
//   - admin holds every role; the Public routes never authenticate; Read
//     routes are Public when reads are open;
//   - every route of a Router has a Rule (Handle and HandleJSON take one);
//   - every mutating request (POST, PUT, PATCH, DELETE) a Router routes
//     takes only Content-Type: application/json (httpjson.RequireJSON):
//     once its rule passes, any other type, or none (a request without a
//     body too), is answered 415 unsupported_media_type and never reaches
//     the handler, whatever the route (no route opts out);
//   - a request the Limiter refuses takes nothing from its bucket.
package auth
