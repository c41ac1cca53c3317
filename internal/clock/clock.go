package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the time on its channel once d has
	// passed.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer made by a Clock.
type Timer interface {
	// C is the channel the timer sends on when it fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it stopped a
	// pending timer.
	Stop() bool
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }

// Virtual is a clock that moves only when Advance or Set is called. It is safe
// for concurrent use.
type Virtual struct {
	mu     sync.Mutex
	now    time.Time
	timers []*virtualTimer
	seq    uint64
}

// NewVirtual returns a virtual clock reading start.
func NewVirtual(start time.Time) *Virtual { return &Virtual{now: start} }

// Epoch is the default start of virtual clocks: a fixed instant so that runs
// from the same seed are identical.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Now returns the virtual time.
func (v *Virtual) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// NewTimer returns a timer that fires when the clock reaches now+d.
func (v *Virtual) NewTimer(d time.Duration) Timer {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.seq++
	t := &virtualTimer{v: v, at: v.now.Add(d), ch: make(chan time.Time, 1), seq: v.seq}
	if d <= 0 {
		t.ch <- v.now
		t.fired = true
		return t
	}
	v.timers = append(v.timers, t)
	return t
}

// Advance moves the clock forward by d, firing due timers in deadline order.
func (v *Virtual) Advance(d time.Duration) {
	v.mu.Lock()
	target := v.now.Add(d)
	v.mu.Unlock()
	v.Set(target)
}

// Set moves the clock to t (never backwards), firing due timers.
func (v *Virtual) Set(t time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t.Before(v.now) {
		return
	}
	sort.SliceStable(v.timers, func(i, j int) bool {
		if v.timers[i].at.Equal(v.timers[j].at) {
			return v.timers[i].seq < v.timers[j].seq
		}
		return v.timers[i].at.Before(v.timers[j].at)
	})
	kept := v.timers[:0]
	for _, tm := range v.timers {
		if !tm.at.After(t) {
			tm.fired = true
			tm.ch <- tm.at
			continue
		}
		kept = append(kept, tm)
	}
	for i := len(kept); i < len(v.timers); i++ {
		v.timers[i] = nil
	}
	v.timers = kept
	v.now = t
}

// Pending returns the number of timers that have not fired or been stopped.
func (v *Virtual) Pending() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.timers)
}

type virtualTimer struct {
	v     *Virtual
	at    time.Time
	ch    chan time.Time
	seq   uint64
	fired bool
}

func (t *virtualTimer) C() <-chan time.Time { return t.ch }

func (t *virtualTimer) Stop() bool {
	t.v.mu.Lock()
	defer t.v.mu.Unlock()
	if t.fired {
		return false
	}
	for i, tm := range t.v.timers {
		if tm == t {
			t.v.timers = append(t.v.timers[:i], t.v.timers[i+1:]...)
			return true
		}
	}
	return false
}
