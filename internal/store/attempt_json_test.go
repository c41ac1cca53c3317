package store_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// TestAttemptAmountsAreStrings: an attempt's fee and gas travel as decimal
// strings (a fee in wei per gas, a balance in wei, pass what a JSON number
// holds exactly in many decoders), and read back exactly.
func TestAttemptAmountsAreStrings(t *testing.T) {
	t.Parallel()
	a := store.Attempt{N: 1, Sender: "s", Nonce: 3, Fee: math.MaxUint64, Gas: 9_007_199_254_740_993}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"fee":"18446744073709551615"`, `"gas":"9007199254740993"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("%s: no %s", b, want)
		}
	}
	var back store.Attempt
	if err := json.Unmarshal(b, &back); err != nil || back.Fee != a.Fee || back.Gas != a.Gas {
		t.Fatalf("read back %+v, %v", back, err)
	}
}
