package clock

import (
	"testing"
	"time"
)

func TestVirtualTimersFireInOrder(t *testing.T) {
	v := NewVirtual(Epoch)
	a := v.NewTimer(2 * time.Second)
	b := v.NewTimer(time.Second)
	c := v.NewTimer(3 * time.Second)
	if !c.Stop() {
		t.Fatal("stop of a pending timer reported false")
	}
	v.Advance(1500 * time.Millisecond)
	select {
	case got := <-b.C():
		if want := Epoch.Add(time.Second); !got.Equal(want) {
			t.Fatalf("b fired at %v, want %v", got, want)
		}
	default:
		t.Fatal("b did not fire")
	}
	select {
	case <-a.C():
		t.Fatal("a fired early")
	default:
	}
	v.Advance(time.Second)
	select {
	case <-a.C():
	default:
		t.Fatal("a did not fire")
	}
	if v.Pending() != 0 {
		t.Fatalf("pending = %d, want 0", v.Pending())
	}
	v.Set(Epoch) // backwards: ignored
	if !v.Now().Equal(Epoch.Add(2500 * time.Millisecond)) {
		t.Fatalf("clock moved backwards to %v", v.Now())
	}
}

func TestVirtualZeroTimerFiresAtOnce(t *testing.T) {
	v := NewVirtual(Epoch)
	tm := v.NewTimer(0)
	select {
	case <-tm.C():
	default:
		t.Fatal("zero timer did not fire")
	}
	if tm.Stop() {
		t.Fatal("stop of a fired timer reported true")
	}
}
