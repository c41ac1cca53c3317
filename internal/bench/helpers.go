package bench

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// keystoreSenders are n keystore senders whose keys come from the seeds
// prefix-0 … prefix-(n-1): the same accounts every run.
func keystoreSenders(prefix string, n int) []sequencer.SenderConfig {
	senders := make([]sequencer.SenderConfig, n)
	for i := range senders {
		key := chain.KeyFromSeed(fmt.Sprintf("%s-%d", prefix, i))
		senders[i] = sequencer.SenderConfig{ID: chain.KeyAddress(key), Key: key}
	}
	return senders
}

// StartCPUProfile writes a CPU profile to path until stop is called (a
// no-op stop for an empty path).
func StartCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// WriteAllocsProfile writes the profile of the allocations made since the
// process started (pprof's "allocs": read it with -sample_index=alloc_space
// or alloc_objects) to path; an empty path writes nothing.
func WriteAllocsProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
}
