package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/clock"
)

// PeakRSS returns the process's peak resident set size in bytes (VmHWM), or 0
// where /proc is not available.
func PeakRSS() uint64 { return vmHWM("/proc/self/status") }

// vmHWM reads VmHWM from a /proc/<pid>/status file, in bytes (0 when it
// cannot).
func vmHWM(path string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// MiB formats bytes as mebibytes.
func MiB(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" }

// wall is the clock benchmarks measure with: they time real work.
var wall clock.Real
