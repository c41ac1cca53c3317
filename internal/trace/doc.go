// Package trace records an engine core's run so that it can be replayed
// (the engine shape's trace, docs/ARCHITECTURE.md): one JSON object a line,
// each one of
//
//	{"start":{"engine":…,"config":…,"now":…,"snapshot":…}}  a core built
//	{"in":Input}                                            an input stepped
//	{"ready":"<sha-256 of the Ready's JSON>"}                a Ready taken
//	{"advance":true}                                        Advance called
//
// A node restarted on the same trace file appends a new start. Replay
// builds each core again, steps the same inputs and checks every Ready
// against the recorded digest. Every engine's driver writes its trace with
// a Writer and `ordo replay` checks it with Replay.
//
// Invariants: a Writer's first error sticks (Flush returns it) and nothing
// is written after it; Replay returns ErrDiverged at the first Ready whose
// digest differs, naming the record.
package trace
