package clock

import (
	"context"
	"testing"
	"time"
)

func TestEvery(t *testing.T) {
	v := NewVirtual(Epoch)
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan time.Time, 10)
	done := make(chan struct{})
	go func() {
		Every(ctx, v, time.Second, func(context.Context) { calls <- v.Now() })
		close(done)
	}()
	if got := <-calls; !got.Equal(Epoch) {
		t.Fatalf("first call at %v, want at once", got)
	}
	for i := 1; i <= 3; i++ {
		deadline := time.Now().Add(10 * time.Second)
		for v.Pending() == 0 { // wait for the timer, not a fixed time
			if time.Now().After(deadline) {
				t.Fatal("no timer set")
			}
			select {
			case <-done:
				t.Fatal("Every returned early")
			default:
			}
			time.Sleep(time.Millisecond)
		}
		v.Advance(time.Second)
		if got := <-calls; !got.Equal(Epoch.Add(time.Duration(i) * time.Second)) {
			t.Fatalf("call %d at %v", i, got)
		}
	}
	cancel()
	<-done
}
