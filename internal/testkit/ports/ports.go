package ports

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Host is the loopback address ports are picked on.
const Host = "127.0.0.1"

// floor is the lowest port picked: above the well-known and most
// registered services' ports.
const floor = 15000

// fallbackLow is the ephemeral range's low end assumed when the kernel does
// not say (Linux's default; macOS and Windows start at 49152).
const fallbackLow = 32768

// rangeFile is where Linux states its ephemeral port range.
const rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// Window returns the ports [lo, hi) picks are made from: from floor up to
// the ephemeral range's low end, or, when the range starts too low to leave
// room there, above its high end.
func Window() (lo, hi int) {
	low, high, ok := ephemeral(rangeFile)
	return window(low, high, ok)
}

// window is Window for the ephemeral range [low, high] (ok false: unknown).
func window(low, high int, ok bool) (lo, hi int) {
	if !ok {
		return floor, fallbackLow
	}
	if low-floor >= 1000 {
		return floor, low
	}
	if 65536-(high+1) >= 1000 {
		return high + 1, 65536
	}
	// The ephemeral range covers nearly every port: below it, however
	// little room is left.
	return max(1024, low-1000), low
}

// ephemeral reads the kernel's ephemeral port range from path.
func ephemeral(path string) (low, high int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	return parseRange(string(b))
}

// parseRange parses "low high" (any blanks between).
func parseRange(s string) (low, high int, ok bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, 0, false
	}
	low, err1 := strconv.Atoi(f[0])
	high, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || low < 1 || high > 65535 || low > high {
		return 0, 0, false
	}
	return low, high, true
}

// Consecutive returns the first of n consecutive loopback ports of
// Window() that were all free a moment ago.
func Consecutive(n int) (int, error) {
	lo, hi := Window()
	if n < 1 || hi-lo < n {
		return 0, fmt.Errorf("ports: no room for %d consecutive ports in [%d, %d)", n, lo, hi)
	}
	for range 100 {
		base := lo + rand.IntN(hi-lo-n+1) //nolint:gosec // a port, not a secret
		if free(base, n) {
			return base, nil
		}
	}
	return 0, fmt.Errorf("ports: no %d consecutive free ports found in [%d, %d)", n, lo, hi)
}

// free binds the n ports from base together, then releases them.
func free(base, n int) bool {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	for p := base; p < base+n; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(Host, strconv.Itoa(p)))
		if err != nil {
			return false
		}
		lns = append(lns, ln)
	}
	return true
}

// Addr returns a loopback address ("127.0.0.1:port") of Window() whose
// port was free a moment ago.
func Addr() (string, error) {
	p, err := Consecutive(1)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(Host, strconv.Itoa(p)), nil
}

// Addrs returns n distinct loopback addresses of Window() whose ports were
// free a moment ago (consecutive ports).
func Addrs(n int) ([]string, error) {
	base, err := Consecutive(n)
	if err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		out[i] = net.JoinHostPort(Host, strconv.Itoa(base+i))
	}
	return out, nil
}
