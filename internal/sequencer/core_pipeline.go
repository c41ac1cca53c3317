package sequencer

import (
	"errors"
	"fmt"
	"strings"
)

// Pipeline is one rule of the in-flight-per-queue policy
// (CoreConfig.Pipelines): the queues whose name starts with Prefix may have
// up to InFlight transactions in flight at once.
type Pipeline struct {
	// Prefix selects the queues the rule applies to: every queue whose name
	// starts with it. The longest prefix that matches a queue wins; "" matches
	// every queue.
	Prefix string `json:"prefix"`
	// InFlight is how many transactions of such a queue may be in flight,
	// from 1 to MaxInFlight.
	InFlight int `json:"inFlight"`
}

// ErrPipeline is returned (wrapped) for an invalid in-flight-per-queue
// policy: a rule's InFlight out of [1, MaxInFlight], or two rules with one
// prefix.
var ErrPipeline = errors.New("invalid pipeline rule")

// CheckPipelines checks an in-flight-per-queue policy (see
// CoreConfig.Pipelines).
func CheckPipelines(rules []Pipeline) error {
	seen := map[string]bool{}
	for _, r := range rules {
		if r.InFlight < 1 || r.InFlight > MaxInFlight {
			return fmt.Errorf("pipeline for queues %q: inFlight %d must be from 1 to %d: %w", r.Prefix+"*", r.InFlight, MaxInFlight, ErrPipeline)
		}
		if seen[r.Prefix] {
			return fmt.Errorf("pipeline for queues %q: the prefix has two rules: %w", r.Prefix+"*", ErrPipeline)
		}
		seen[r.Prefix] = true
	}
	return nil
}

// InFlightFor returns how many transactions of queue may be in flight under
// rules: the InFlight of the longest prefix that matches it, else
// DefaultInFlightPerQueue.
func InFlightFor(rules []Pipeline, queue string) int {
	n, best := DefaultInFlightPerQueue, -1
	for _, r := range rules {
		if len(r.Prefix) > best && strings.HasPrefix(queue, r.Prefix) {
			n, best = r.InFlight, len(r.Prefix)
		}
	}
	return n
}
