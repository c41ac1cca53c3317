// Package clock is ordo's one injected clock.
//
// Every engine reads time through a Clock so that production runs on the wall
// clock (Real) while tests and simulations run on a Virtual clock that moves
// only when told to (docs/ARCHITECTURE.md, principle 2).
//
// Invariants: a Virtual clock never moves backwards; its timers fire in
// deadline order, each at most once, when Advance or Set passes their deadline.
package clock
