package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
)

// in is a fake input: v > 0 asks for an effect of that value and a reply of
// twice it; tick marks the clock input.
type in struct {
	req      uint64
	at       time.Time
	v        int
	tick     bool
	drop     bool // Prepare leaves it unstepped
	fail     bool // Prepare fails it
	answered bool // an effect's answer
}

type rep struct {
	req uint64
	v   int
}

// fake is a core that has a Ready whenever a non-tick input was stepped.
type fake struct {
	stepped  []in
	pending  []in
	commits  int
	failNext bool
	rebuilt  int
}

func newFake(inline bool) (*fake, *Loop[in, rep, int]) {
	f := &fake{}
	l := New(Spec[in, rep, int]{
		Name: "fake", Clock: clock.NewVirtual(clock.Epoch), Log: slog.New(slog.DiscardHandler),
		Inline: inline, Retired: errors.New("retired"),
		WithReq: func(x in, req uint64) in { x.req = req; return x },
		ReqOf:   func(r rep) uint64 { return r.req },
		Stamp:   func(x in, now time.Time) in { x.at = now; return x },
		Tick:    func(now time.Time) in { return in{at: now, tick: true} },
		Prepare: func(_ context.Context, x in) (in, bool, error) {
			if x.fail {
				return x, false, errors.New("prepare failed")
			}
			return x, !x.drop, nil
		},
		Step: func(x in) {
			f.stepped = append(f.stepped, x)
			if !x.tick {
				f.pending = append(f.pending, x)
			}
		},
		HasReady: func() bool { return len(f.pending) > 0 },
		Ready: func() Ready[rep, int] {
			var r Ready[rep, int]
			for _, x := range f.pending {
				if x.req != 0 {
					r.Replies = append(r.Replies, rep{req: x.req, v: 2 * x.v})
				}
				if x.v > 0 && !x.answered {
					r.Effects = append(r.Effects, x.v)
				}
			}
			r.Commit = func(context.Context) error {
				if f.failNext {
					f.failNext = false
					return errors.New("disk full")
				}
				f.commits++
				return nil
			}
			return r
		},
		Advance:      func() { f.pending = nil },
		NextDeadline: func() time.Time { return time.Time{} },
		Rebuild:      func(context.Context) error { f.rebuilt++; f.pending = nil; return nil },
		Perform:      func(_ context.Context, e int) in { return in{v: e, answered: true} },
	})
	return f, l
}

func TestTurnAnswers(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		in       in
		failNext bool
		wantOK   bool
		wantRep  rep
		wantErr  string
		stepped  int // inputs stepped, the tick included
	}{
		{name: "reply after the commit", in: in{v: 3}, wantOK: true, wantRep: rep{req: 1, v: 6}, stepped: 2},
		{name: "dropped: the zero reply", in: in{v: 3, drop: true}, wantOK: true, stepped: 1},
		{name: "prepare failed: its error", in: in{v: 3, fail: true}, wantOK: true, wantErr: "prepare failed", stepped: 1},
		{name: "commit failed: retired", in: in{v: 3}, failNext: true, wantOK: true, wantErr: "retired", stepped: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, l := newFake(false)
			f.failNext = tt.failNext
			got := l.Ask(tt.in)
			if _, ok, _ := got(); ok {
				t.Fatal("answered before a turn")
			}
			if _, err := l.Turn(ctx); err != nil {
				t.Fatal(err)
			}
			r, ok, err := got()
			if ok != tt.wantOK || r != tt.wantRep || (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
				t.Fatalf("got %+v %v %v, want %+v %v %q", r, ok, err, tt.wantRep, tt.wantOK, tt.wantErr)
			}
			if len(f.stepped) != tt.stepped {
				t.Fatalf("stepped %d inputs, want %d", len(f.stepped), tt.stepped)
			}
			if want := map[bool]int{true: 1}[tt.failNext]; f.rebuilt != want {
				t.Fatalf("rebuilt %d times, want %d", f.rebuilt, want)
			}
			if l.Waiting() {
				t.Fatal("inputs left queued")
			}
		})
	}
}

func TestTurnStampsAndOrders(t *testing.T) {
	f, l := newFake(false)
	l.Put(in{v: 1})
	l.Put(in{v: 2})
	effs, err := l.Turn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(effs, []int{1, 2}) {
		t.Fatalf("effects %v, want [1 2]", effs)
	}
	if len(f.stepped) != 3 || !f.stepped[2].tick {
		t.Fatalf("stepped %+v: want both inputs, then the tick", f.stepped)
	}
	for _, x := range f.stepped {
		if !x.at.Equal(clock.Epoch) {
			t.Fatalf("input stamped %v, want %v", x.at, clock.Epoch)
		}
	}
}

func TestInlineAndDeferred(t *testing.T) {
	ctx := context.Background()
	_, l := newFake(true)
	l.Put(in{v: 1})
	if effs, err := l.Turn(ctx); err != nil || effs != nil {
		t.Fatalf("inline turn returned %v, %v", effs, err)
	}
	if !l.Waiting() {
		t.Fatal("inline turn queued no answer")
	}
	_, l = newFake(true)
	l.Put(in{v: 1})
	effs, err := l.TurnDeferred(ctx)
	if err != nil || !slices.Equal(effs, []int{1}) {
		t.Fatalf("deferred turn returned %v, %v", effs, err)
	}
	if l.Waiting() {
		t.Fatal("deferred turn performed an effect")
	}
	l.Perform(ctx, effs[0])
	if !l.Waiting() {
		t.Fatal("Perform queued no answer")
	}
}

func TestDoWaitsForTheTurn(t *testing.T) {
	_, l := newFake(false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx, func(int) chan<- int { return make(chan int, 1) }) }()
	r, err := l.Do(ctx, in{v: 4})
	if err != nil || r.v != 8 {
		t.Fatalf("Do = %+v, %v", r, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
}

// TestCommitCutByShutdown: a commit that fails because the loop's context
// ended is an error of the turn (not a silent success), so Run stops
// instead of stepping a core left between Ready and Advance.
func TestCommitCutByShutdown(t *testing.T) {
	f, l := newFake(false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.failNext = true
	l.Put(in{v: 1})
	if _, err := l.Turn(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Turn after a commit cut by the shutdown: err %v, want context.Canceled", err)
	}
	if f.rebuilt != 0 {
		t.Errorf("rebuilt %d times during a shutdown, want 0", f.rebuilt)
	}
	if err := l.Run(ctx, func(int) chan<- int { return make(chan int, 1) }); err != nil {
		t.Errorf("Run on an ended context: %v, want nil", err)
	}
}

// TestStoppedLoopRetiresCallers: once Run has returned, a caller already
// waiting and every later one get Spec.Retired at once, not a wait on a
// Loop nobody turns (an engine stopped here answers "unavailable").
func TestStoppedLoopRetiresCallers(t *testing.T) {
	f, l := newFake(false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx, func(int) chan<- int { return make(chan int, 1) }) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	waitCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	for i := range 3 {
		if _, err := l.Do(waitCtx, in{v: 1}); err == nil || err.Error() != "retired" {
			t.Fatalf("Do %d on a stopped Loop: %v, want retired", i, err)
		}
	}
	if len(f.pending) != 0 || l.Waiting() {
		t.Fatalf("stepped %v, waiting %v: want no input stepped or left queued", f.pending, l.Waiting())
	}
}
