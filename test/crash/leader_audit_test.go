package crash_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/store"
)

// leaderReport is what the leader crash test's audit counted.
type leaderReport struct {
	bad, ok, failed        int
	submitOK, submitFailed int
	failReasons            string // failed submit_result transactions by reason
	byLeader               string // results by the account that sent them
	whyFailed              string // failure results by kind of reason
	events                 string // the node's events by status
	invocations            string // the tools' answers by tool and kind
	acrossRuns             int    // walks whose tool was invoked in more than one node run
}

// chainSubmit is one submit_result transaction found in a block.
type chainSubmit struct {
	height  uint64
	from    chain.Address
	ok      bool
	success bool
	reason  string
	memo    string
}

// countMap renders a count map as "k=v k=v" by key.
func countMap(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// leaderEvents reads every event the node lists, page by page.
func leaderEvents(ctx context.Context, api *papi) ([]store.LeaderEvent, error) {
	var all []store.LeaderEvent
	after := int64(0)
	for {
		var page struct {
			Events []store.LeaderEvent `json:"events"`
			Next   int64               `json:"next"`
		}
		if err := api.call(ctx, http.MethodGet, "/v1/leader/events?limit=1000&after="+strconv.FormatInt(after, 10), nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Events...)
		if len(page.Events) == 0 || page.Next <= after {
			return all, nil
		}
		after = page.Next
	}
}

// chainWorkflowTxs reads every block: the request transactions by walk
// (successful inclusions) and the submit_result transactions by walk.
func chainWorkflowTxs(ctx context.Context, dc *devchain.Client) (requests map[string]int, submits map[string][]chainSubmit, err error) {
	hd, err := dc.Head(ctx)
	if err != nil {
		return nil, nil, err
	}
	requests, submits = map[string]int{}, map[string][]chainSubmit{}
	for next := uint64(0); next <= hd.Height; {
		bs, err := dc.Blocks(ctx, next, min(next+devchain.MaxBlocksPerRequest-1, hd.Height))
		if err != nil {
			return nil, nil, err
		}
		if len(bs) == 0 {
			return nil, nil, fmt.Errorf("no blocks from %d below head %d", next, hd.Height)
		}
		for _, b := range bs {
			next = b.Height + 1
			for _, tx := range b.Txs {
				if tx.Contract != devchain.WorkflowContract {
					continue
				}
				var a struct {
					Walk string `json:"walk"`
					OK   bool   `json:"ok"`
				}
				_ = json.Unmarshal(tx.Args, &a)
				ok := tx.Status == chain.OutcomeSucceeded
				switch tx.Method {
				case devchain.WorkflowRequest:
					if ok {
						requests[a.Walk]++
					}
				case devchain.WorkflowSubmitResult:
					submits[a.Walk] = append(submits[a.Walk], chainSubmit{height: b.Height, from: tx.From, ok: a.OK, success: ok, reason: tx.Reason, memo: tx.Memo})
				}
			}
		}
	}
	return requests, submits, nil
}

// expectedOK says whether w's result must be ok, from its tool's answers:
// an input off schema never is; the ok tool always is; the others are
// exactly when their last answer was right. why explains the expectation.
func expectedOK(w *plannedWalk, answers []toolAnswer) (want bool, why string) {
	switch {
	case w.bad:
		return false, "its input is off the tool's input schema"
	case w.tool == toolOK:
		return true, "the ok tool always answers right"
	case len(answers) == 0:
		return false, "its tool was never invoked"
	}
	last := answers[len(answers)-1]
	return last.kind == ansCorrect, fmt.Sprintf("its tool's last answer (of %d, in node run %d) was %s", len(answers), last.run, last.kind)
}

// errorFits says whether a failure result's error fits the tool's last
// answer: an input schema violation, an output schema violation for a
// lie, the tool's 4xx for a refusal, retries used up after slow or 503
// answers.
func errorFits(w *plannedWalk, answers []toolAnswer, msg string) bool {
	if w.bad {
		return strings.Contains(msg, "input schema")
	}
	if len(answers) == 0 {
		return false
	}
	switch answers[len(answers)-1].kind {
	case ansLie:
		return strings.Contains(msg, "output schema")
	case ansRefused:
		return strings.Contains(msg, "403")
	case ansSlow, ansUnavailable:
		return strings.Contains(msg, "retries used up")
	default: // a correct or bad-input answer does not end in a failure result
	}
	return false
}

// failureKind names the kind of a failure result's error, for the summary.
func failureKind(msg string) string {
	for _, k := range []struct{ sub, kind string }{
		{"input schema", "input-schema"}, {"output schema", "output-schema"}, {"retries used up", "retries"},
		{"stale", "stale"}, {"tool: fatal", "tool-4xx"},
	} {
		if strings.Contains(msg, k.sub) {
			return k.kind
		}
	}
	return "other"
}

// auditLeaderRun checks the end of a leader crash run against the chain
// (its blocks' request counts and submit_result transactions by walk, and
// each walk's result), the tools' records and the node's events.
func auditLeaderRun(ctx context.Context, t *testing.T, api *papi, requests map[string]int, submits map[string][]chainSubmit, walks []*plannedWalk,
	results map[string]devchain.Walk, farm *toolFarm, leaders []chain.Address) leaderReport {
	t.Helper()
	var rep leaderReport
	var problems []string
	errorf := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	defer func() {
		for i, p := range problems {
			if i == 40 {
				t.Errorf("... and %d more violations", len(problems)-40)
				break
			}
			t.Error(p)
		}
	}()
	isLeader := map[chain.Address]bool{}
	for _, l := range leaders {
		isLeader[l] = true
	}
	planned := map[string]*plannedWalk{}
	for _, w := range walks {
		planned[w.id] = w
	}

	// 1. The blocks: one request and exactly one successful submit_result per walk, ours.
	reasons, byLeader := map[string]int{}, map[string]int{}
	for walk, ss := range submits {
		if planned[walk] == nil {
			errorf("UNKNOWN WALK: submit_result transactions for %q, which the test never requested", walk)
		}
		succeeded := 0
		for _, s := range ss {
			if !isLeader[s.from] {
				errorf("NOT OUR LEADER: a submit_result for %s from %s", walk, s.from)
			}
			if s.success {
				succeeded++
				byLeader[string(s.from)[:8]]++
				rep.submitOK++
			} else {
				rep.submitFailed++
				reasons[s.reason]++
			}
		}
		if succeeded > 1 {
			errorf("TWO RESULTS: %s has %d successful submit_result transactions on chain: %+v", walk, succeeded, ss)
		}
	}
	rep.failReasons, rep.byLeader = countMap(reasons), countMap(byLeader)
	answers, counts, unsigned, signer := farm.snapshot()
	inv := map[string]int{}
	for tool, m := range counts {
		for k, n := range m {
			inv[tool+":"+string(k)] += n
		}
	}
	rep.invocations = countMap(inv)
	if unsigned > 0 {
		errorf("UNSIGNED: %d tool invocations did not carry Ordo-Leader %s", unsigned, signer)
	}

	// 2. Each walk: requested once, its one result as its tool's answers imply.
	whyFailed := map[string]int{}
	for _, w := range walks {
		if w.bad {
			rep.bad++
		}
		if requests[w.id] != 1 {
			errorf("REQUEST: %s was requested %d times on chain, want 1", w.id, requests[w.id])
		}
		succ := 0
		for _, s := range submits[w.id] {
			if s.success {
				succ++
			}
		}
		res, ok := results[w.id]
		if !ok || res.Result == nil {
			errorf("NO RESULT: %s (%s) has no result on chain", w.id, w.tool)
			continue
		}
		r := res.Result
		if succ != 1 {
			errorf("RESULT TXS: %s has a result on chain but %d successful submit_result transactions in the blocks", w.id, succ)
		}
		if !isLeader[r.Leader] {
			errorf("NOT OUR LEADER: the result of %s was submitted by %s", w.id, r.Leader)
		}
		if r.OK {
			rep.ok++
		} else {
			rep.failed++
			whyFailed[failureKind(r.Error)]++
		}
		as := answers[w.id]
		if len(as) > 0 && as[0].run != as[len(as)-1].run {
			rep.acrossRuns++
		}
		if w.bad && len(as) > 0 {
			errorf("BAD INPUT SENT: %s's input is off the %s tool's input schema, yet the tool was invoked %d times", w.id, w.tool, len(as))
		}
		want, why := expectedOK(w, as)
		switch {
		case r.OK != want:
			errorf("WRONG RESULT: %s (%s) ended ok=%v (%q), want ok=%v: %s; answers %s", w.id, w.tool, r.OK, r.Error, want, why, answerList(as))
		case r.OK && !sameJSON(r.Output, w.want):
			errorf("WRONG OUTPUT: %s (%s) reported %s, the right output is %s", w.id, w.tool, r.Output, w.want)
		case !r.OK && !errorFits(w, as, r.Error):
			errorf("WRONG REASON: %s (%s) failed with %q, which does not fit: %s; answers %s", w.id, w.tool, r.Error, why, answerList(as))
		}
	}

	rep.whyFailed = countMap(whyFailed)

	// 3. The node's events: every walk once, Successful or Dead with a reason, as the chain says.
	evs, err := leaderEvents(ctx, api)
	if err != nil {
		t.Fatalf("GET /v1/leader/events: %v", err)
	}
	seen := map[string]int{}
	byStatus := map[string]int{}
	for _, e := range evs {
		byStatus[string(e.Status)]++
		seen[e.Walk]++
		w := planned[e.Walk]
		if w == nil {
			errorf("UNKNOWN EVENT: event %d names walk %q, which the test never requested", e.ID, e.Walk)
			continue
		}
		res := results[e.Walk].Result
		switch {
		case e.Status != store.EventSuccessful && e.Status != store.EventDead:
			errorf("NOT ENDED: event %d (%s) is %s (phase %q, retried %d) after every walk had its result", e.ID, e.Walk, e.Status, e.Phase, e.Retried)
		case e.Status == store.EventDead && e.Error == "":
			errorf("DEAD WITHOUT A REASON: event %d (%s)", e.ID, e.Walk)
		case res != nil && res.OK != (e.Status == store.EventSuccessful):
			errorf("EVENT AND CHAIN DISAGREE: event %d (%s) is %s (%q), the chain's result is ok=%v (%q)", e.ID, e.Walk, e.Status, e.Error, res.OK, res.Error)
		}
	}
	for _, w := range walks {
		if seen[w.id] != 1 {
			errorf("EVENTS: walk %s is listed %d times by GET /v1/leader/events, want once", w.id, seen[w.id])
		}
	}
	rep.events = countMap(byStatus)
	return rep
}

// sameJSON says whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func answerList(as []toolAnswer) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, fmt.Sprintf("%s@run%d", a.kind, a.run))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
