package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// Seed returns ORDO_SEED, or a fresh random seed when it is unset, and
// logs it with the line that replays it; a malformed ORDO_SEED fails t.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("ORDO_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ORDO_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (replay: ORDO_SEED=%d)", seed, seed)
	return seed
}

// Runs returns how many seeds a randomized core test runs and how many
// steps each: 4 of 3000, 1 of 1000 under -short, the number of seeds set
// by ORDO_SEEDS when given.
func Runs() (runs, steps int) {
	runs, steps = 4, 3000
	if testing.Short() {
		runs, steps = 1, 1000
	}
	if s := os.Getenv("ORDO_SEEDS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	return runs, steps
}

// Seeds runs fn in a subtest "seed=N" for each of Runs' seeds, from Seed(t)
// on, handing it the seed and the steps to take; each subtest first logs
// the line that replays it alone.
func Seeds(t *testing.T, fn func(t *testing.T, seed uint64, steps int)) {
	t.Helper()
	seed := Seed(t)
	runs, steps := Runs()
	for i := range runs {
		s := seed + uint64(i)
		t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) {
			t.Helper()
			t.Logf("replay: ORDO_SEED=%d ORDO_SEEDS=1", s)
			fn(t, s, steps)
		})
	}
}

// SameTwice runs run twice and fails t unless both runs give the same
// digest (a seeded run must be deterministic); it logs the digest.
func SameTwice(t testing.TB, run func() string) {
	t.Helper()
	d1 := run()
	d2 := run()
	if d1 != d2 {
		t.Fatalf("the same seed gave two digests: %s and %s", d1, d2)
	}
	t.Logf("digest %s", d1)
}

// Digest is a running sha256 of values' JSON encodings, one a line: the
// fingerprint of a run (every Ready a core gave). A nil *Digest takes
// nothing, so a harness can hold one only when a test wants it.
type Digest struct {
	h hash.Hash
}

// NewDigest returns an empty digest.
func NewDigest() *Digest { return &Digest{h: sha256.New()} }

// Add takes v's JSON encoding (as json.Encoder writes it); an encoding
// error fails t.
func (d *Digest) Add(t testing.TB, v any) {
	if d == nil {
		return
	}
	if err := json.NewEncoder(d.h).Encode(v); err != nil {
		t.Fatalf("digest: encode %T: %v", v, err)
	}
}

// String returns the digest so far in hex.
func (d *Digest) String() string { return hex.EncodeToString(d.h.Sum(nil)) }
