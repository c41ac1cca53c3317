package ports

import (
	"net"
	"strconv"
	"testing"
)

func TestParseRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in        string
		low, high int
		ok        bool
	}{
		{"32768\t60999\n", 32768, 60999, true},
		{"1024 65535", 1024, 65535, true},
		{"", 0, 0, false},
		{"32768", 0, 0, false},
		{"60999 32768", 0, 0, false},
		{"0 100", 0, 0, false},
		{"1 70000", 0, 0, false},
		{"a b", 0, 0, false},
	} {
		low, high, ok := parseRange(tc.in)
		if low != tc.low || high != tc.high || ok != tc.ok {
			t.Errorf("parseRange(%q) = %d %d %v, want %d %d %v", tc.in, low, high, ok, tc.low, tc.high, tc.ok)
		}
	}
}

// TestWindowAvoidsEphemeral: the window never overlaps the ephemeral range.
func TestWindowAvoidsEphemeral(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		low, high int
		ok        bool
		lo, hi    int
	}{
		{"linux default", 32768, 60999, true, 15000, 32768},
		{"macOS/windows", 49152, 65535, true, 15000, 49152},
		{"low start: above", 10000, 40000, true, 40001, 65536},
		{"nearly all", 2000, 65000, true, 1024, 2000},
		{"unknown", 0, 0, false, 15000, 32768},
	} {
		lo, hi := window(tc.low, tc.high, tc.ok)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: window [%d, %d), want [%d, %d)", tc.name, lo, hi, tc.lo, tc.hi)
		}
		if tc.ok && lo <= tc.high && hi > tc.low {
			t.Errorf("%s: window [%d, %d) overlaps the ephemeral range [%d, %d]", tc.name, lo, hi, tc.low, tc.high)
		}
	}
}

// TestConsecutiveOutsideEphemeralRange: the ports picked on this machine
// lie outside the kernel's ephemeral range and can be bound.
func TestConsecutiveOutsideEphemeralRange(t *testing.T) {
	low, high, ok := ephemeral(rangeFile)
	for range 20 {
		base, err := Consecutive(5)
		if err != nil {
			t.Fatal(err)
		}
		if ok && base+4 >= low && base <= high {
			t.Fatalf("ports %d..%d overlap the ephemeral range [%d, %d]", base, base+4, low, high)
		}
	}
	addr, err := Addr()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	if p, _ := strconv.Atoi(port); ok && p >= low && p <= high {
		t.Fatalf("Addr %s in the ephemeral range [%d, %d]", addr, low, high)
	}
	as, err := Addrs(3)
	if err != nil || len(as) != 3 || as[0] == as[1] || as[1] == as[2] {
		t.Fatalf("Addrs(3) = %v, %v", as, err)
	}
}
