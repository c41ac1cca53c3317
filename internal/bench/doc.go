// Package bench holds ordo's benchmarks as library code, so that `ordo bench`
// and tests run the same thing. Each benchmark ends with one line of figures.
//
// Invariants: a benchmark measures wall time on the real clock (it is a
// driver, not an engine) and reports what it measured, never a target.
package bench
