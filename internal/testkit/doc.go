// Package testkit holds what several packages' tests need alike: a buffer a
// logger writes to while a test reads it (LogBuffer), the value of a
// Prometheus metric read through a registry (Metric), and what the engines'
// core tests share: the datadriven scenario plumbing (scenario.go), seeds
// that print their replay line and digests of a run (seed.go), and harness
// helpers (harness.go). Test code only.
//
// Invariants: LogBuffer is safe for a logger's concurrent writes and a test's
// reads; Metric reads the gathered values, never a metric's internals; Seed
// logs the seed it returns, so every randomized run can be replayed.
package testkit
