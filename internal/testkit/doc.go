// Package testkit holds what several packages' tests need alike: a buffer a
// logger writes to while a test reads it (LogBuffer), and the value of a
// Prometheus metric read through a registry (Metric). Test code only.
//
// Invariants: LogBuffer is safe for a logger's concurrent writes and a test's
// reads; Metric reads the gathered values, never a metric's internals.
package testkit
