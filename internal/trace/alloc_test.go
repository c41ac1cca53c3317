package trace

import "testing"

// A nil Writer (no trace configured) records nothing and allocates
// nothing: the engines call Input on every step.
func TestNilWriterAllocatesNothing(t *testing.T) {
	var w *Writer[struct{}, struct{}, [64]byte]
	in := [64]byte{1}
	if n := testing.AllocsPerRun(100, func() { w.Input(in) }); n != 0 {
		t.Fatalf("a nil writer's Input allocates %v times a call", n)
	}
}
