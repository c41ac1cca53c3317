package sequencer

import (
	"fmt"
	"reflect"
	"testing"
)

// TestLoadQueue: loads come out in the order put, with their cursor and
// limit, across compactions, and an empty queue answers none.
func TestLoadQueue(t *testing.T) {
	for _, n := range []int{0, 1, 3, 1500, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			q := newLoadQueue()
			for i := range n {
				q.put(Effect{Kind: EffectLoad, Queue: fmt.Sprint(i), After: int64(i), Limit: i % 7})
			}
			for i := range n {
				e, ok := q.take()
				want := Effect{Kind: EffectLoad, Queue: fmt.Sprint(i), After: int64(i), Limit: i % 7}
				if !ok || !reflect.DeepEqual(e, want) {
					t.Fatalf("take %d: %+v, %v; want %+v", i, e, ok, want)
				}
				if i == n/2 {
					q.put(Effect{Kind: EffectLoad, Queue: "late"})
				}
			}
			if n > 0 {
				if e, ok := q.take(); !ok || e.Queue != "late" {
					t.Fatalf("the late load: %q, %v", e.Queue, ok)
				}
			}
			if _, ok := q.take(); ok {
				t.Fatal("an empty queue gave a load")
			}
		})
	}
}

// TestWaitingWindow: the default window, but for a start over more queues
// than the budget allows 64 each, unless set or pipelined.
func TestWaitingWindow(t *testing.T) {
	for _, tt := range []struct {
		name      string
		cfg       Config
		queues    int
		want      int
		effective int
	}{
		{"no queues", Config{}, 0, 0, DefaultWaitingWindow},
		{"few queues", Config{}, 1000, 0, DefaultWaitingWindow},
		{"at the budget", Config{}, WaitingBudget / DefaultWaitingWindow, 0, DefaultWaitingWindow},
		{"10,000 queues", Config{}, 10_000, 26, 26},
		{"100,000 queues", Config{}, 100_000, MinWaitingWindow, MinWaitingWindow},
		{"set", Config{WaitingWindow: 100}, 100_000, 100, 100},
		{"pipelined", Config{Pipelines: []Pipeline{{Prefix: "p", InFlight: 8}}}, 100_000, 0, DefaultWaitingWindow},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := &Node{cfg: tt.cfg}
			got := n.waitingWindow(tt.queues)
			if got != tt.want {
				t.Fatalf("waitingWindow(%d) = %d, want %d", tt.queues, got, tt.want)
			}
			c := CoreConfig{WaitingWindow: got}
			if err := c.setDefaults(); err != nil {
				t.Fatal(err)
			}
			if c.WaitingWindow != tt.effective {
				t.Fatalf("the core's window %d, want %d", c.WaitingWindow, tt.effective)
			}
		})
	}
}
