// Package uitest holds the dashboard's browser test (issue 29, "Tests"):
// it starts a node in process (node.Build and Serve on a loopback port,
// with its in-process devchain, traffic, and tokens for an admin, a
// read-only and a submit-only principal), drives a real headless Chromium
// through the Chrome DevTools protocol (chromedp) over every view as each
// principal, and checks what each view shows against the API's answers.
//
// The test is a table over views (viewCases): each row opens a route,
// waits for its data, compares it with the API and may act (an admin's
// buttons). The engine views add their rows in uitest_engines_test.go.
//
// Invariants: it runs only with ORDO_LONG=1 (testkit.NeedLong); it skips
// loudly when Chromium (/usr/bin/chromium, or ORDO_CHROMIUM) is missing
// and fails then under CI=true; any console error, warning, uncaught
// exception or failed request the row does not expect fails it; each
// view's screenshot (1280×800 PNG) goes to ORDO_UI_SHOTS when set, else
// to a temporary directory.
package uitest
