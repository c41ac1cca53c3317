package sim

import "testing"

// TestActionsRoundTrip: every action drawn prints to a line that reads back
// as the same action, so a printed failing trace can be run again.
func TestActionsRoundTrip(t *testing.T) {
	for _, a := range genActions(5, 3000, 8, 2) {
		got, err := ParseAction(" 17 " + a.String())
		if err != nil || got != a {
			t.Fatalf("%q read back as %+v (%v), want %+v", a.String(), got, err, a)
		}
	}
	for _, bad := range []string{"", "submit", "advance x", "fault nope 1", "fault reject", "crash now"} {
		if _, err := ParseAction(bad); err == nil {
			t.Errorf("ParseAction(%q) accepted", bad)
		}
	}
}
