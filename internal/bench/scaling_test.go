package bench

import "testing"

func TestScaling(t *testing.T) {
	t.Parallel()
	got := Scaling([]BurndownResult{{GOMAXPROCS: 1, Whole: 1000}, {GOMAXPROCS: 2, Whole: 1500}})
	want := "burndown scaling: GOMAXPROCS 1: 1000 intents/s (1.00×); GOMAXPROCS 2: 1500 intents/s (1.50×)"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	got = Scaling([]BurndownResult{{GOMAXPROCS: 2, Whole: 1000, Opts: BurndownOptions{Nodes: 1}}, {GOMAXPROCS: 2, Whole: 1100, Opts: BurndownOptions{Nodes: 2}}})
	want = "burndown scaling: GOMAXPROCS 2, 1 node: 1000 intents/s (1.00×); GOMAXPROCS 2, 2 nodes: 1100 intents/s (1.10×)"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
