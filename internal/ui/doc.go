// Package ui is the node's dashboard (issue 29): a browser client of the
// documented API, served by the node itself at /ui/ from assets embedded
// in the binary, so that nothing else is installed and it works offline.
//
// The stack is plain ES modules with no build step and no npm runtime
// dependency: there is nothing to rebuild when a file changes, nothing
// third-party to audit in the assets, and no CDN to reach. index.html loads
// js/app.js (the hash router, sign-in, navigation and role gating), which
// imports js/api.js (the API client: JSON reads and writes, the change
// stream), js/ui.js (DOM helpers that write text through textContent only)
// and the views listed in js/views/index.js.
//
// Invariants:
//   - the assets carry no data and no secret: every datum comes from the
//     API, asked with the bearer token the user typed, kept in the
//     browser's session storage (never a URL, never a cookie); so /ui/ is
//     mounted with rule auth.Public and page loads carry no credentials;
//   - every /ui/ answer carries a strict Content-Security-Policy (CSP: no
//     inline script or style, connections to the node only, no framing),
//     X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer, a
//     content type from the file's extension, and never a Set-Cookie;
//   - a path that names no asset (or a directory other than /ui/ itself)
//     is answered 404 route_not_found in the API's JSON error body.
package ui
