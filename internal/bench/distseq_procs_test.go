package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit"
)

// distseqStats, the statistics both runs share, on a synthetic run: 10
// intents a block, none in the two blocks after the boundary at 10, one
// intent confirmed twice, latencies of 1 block but for one of 5.
func TestDistseqStats(t *testing.T) {
	ob := distseqObs{submitH: map[string]uint64{}, doneH: map[string]uint64{}, confirmedAt: map[string]uint64{}, confirmed: map[string]int{}}
	for h := uint64(1); h <= 22; h++ {
		if h == 10 || h == 11 {
			continue
		}
		for j := range 10 {
			id := fmt.Sprintf("t%d-%d", h, j)
			ob.submitH[id], ob.doneH[id], ob.confirmedAt[id] = h-1, h, h
			ob.confirmed["g/"+id] = 1
		}
	}
	ob.submitH["slow"], ob.doneH["slow"], ob.confirmedAt["slow"], ob.confirmed["g/slow"] = 3, 8, 8, 2
	ob.confirmedAt["other"], ob.confirmed["g/other"] = 9, 1 // confirmed, never acknowledged
	ob.submitH["lost"] = 20                                 // acknowledged, never confirmed
	res := DistseqResult{Opts: DistseqOptions{RangeSize: 5, BlockTime: time.Second}}
	distseqStats(&res, ob, 0, 20)
	// The window is blocks 4..20 (17 blocks, 151 intents: 15 x 10 and slow).
	want := DistseqResult{Submitted: 202, Confirmed: 202, Doubles: 1, Boundaries: 4, PerBlock: 10, Dip: 2, DipAt: 10, P50: 1, P99: 1}
	got := res
	got.Opts, got.PerHeight, got.Rate = DistseqOptions{}, nil, 0
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if want := 151.0 / 17; res.Rate != want {
		t.Errorf("rate %g, want %g", res.Rate, want)
	}
	if res.PerHeight[8] != 11 || res.PerHeight[9] != 10 || res.PerHeight[10] != 0 {
		t.Errorf("per height %v", res.PerHeight)
	}
}

// A tiny run on processes (a devchain and 4 ordo serve built from this
// module) crosses 2 range boundaries, confirms every acknowledged intent
// exactly once and prints the process count in its line.
func TestDistseqProcsSmall(t *testing.T) { distseqProcsSmall(t, "devchain") }

// TestDistseqProcsSmallOnEVM: the same on a simulated EVM chain (`ordo
// bench distseq --chain evm`).
func TestDistseqProcsSmallOnEVM(t *testing.T) { distseqProcsSmall(t, "evm") }

func distseqProcsSmall(t *testing.T, chainName string) {
	if !testkit.Long() {
		t.Skip("processes: a long run (ORDO_LONG=1; .ci/run sets it)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bin, err := procs.Build(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Distseq(ctx, DistseqOptions{Chain: chainName, Processes: 4, Bin: bin, Dir: dir, SendersPerNode: 3, RangeSize: 5,
		BlockTime: 500 * time.Millisecond, Duration: 8 * time.Second, Coins: 200, Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	t.Log(r.Diagnosis())
	if r.Submitted == 0 || r.Refused != 0 || r.Confirmed != r.Submitted || r.Doubles != 0 {
		t.Fatalf("submitted %d, refused %d, confirmed %d, twice %d", r.Submitted, r.Refused, r.Confirmed, r.Doubles)
	}
	// The steady per-block figure is a median: on an EVM chain each
	// switchover leaves blocks with no confirm, so it may be 0 in a run this
	// short. The test asks only that intents were confirmed in the window.
	if r.Boundaries < 2 || r.Rate <= 0 || r.P99 < r.P50 {
		t.Fatalf("%+v", r)
	}
	if !strings.HasPrefix(r.String(), "distseq: 4 processes x 3 senders") || strings.Contains(r.String(), "simulated EVM chain") != (chainName == "evm") {
		t.Fatalf("line %q", r)
	}
}

func TestDistseqBenchChain(t *testing.T) {
	t.Parallel()
	o := DistseqOptions{Chain: "evm", Nodes: 3}
	if err := o.defaults(); err != nil || o.Processes != 3 {
		t.Fatalf("--chain evm: processes %d, %v; want 3 (the nodes)", o.Processes, err)
	}
	o = DistseqOptions{Chain: "mina"}
	if err := o.defaults(); err == nil || !strings.Contains(err.Error(), "devchain or evm") {
		t.Fatalf("--chain mina: %v", err)
	}
}

func TestDistseqProcsContracts(t *testing.T) {
	_, err := Distseq(t.Context(), DistseqOptions{Processes: 2, Contracts: 2})
	if err == nil || !strings.Contains(err.Error(), "one privacy group") {
		t.Fatalf("2 contracts on processes: %v", err)
	}
}
