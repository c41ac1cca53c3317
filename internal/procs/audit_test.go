package procs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// onChain is what the chain's events say of a group's intents.
type onChain struct {
	// confirmed counts IntentConfirmed events per txId.
	confirmed map[string]int
	// spentBy lists the txIds that spent each state id.
	spentBy map[string][]string
	// creates is each confirmed txId's created state ids.
	creates map[string][]string
}

// readChain reads every IntentConfirmed event of group from the chain.
func readChain(ctx context.Context, c *procs.Committee, group string) (onChain, error) {
	out := onChain{confirmed: map[string]int{}, spentBy: map[string][]string{}, creates: map[string][]string{}}
	dc := c.Chain()
	var after uint64
	for {
		evs, err := dc.Events(ctx, after, 0)
		if err != nil {
			return out, fmt.Errorf("events after %d: %w", after, err)
		}
		if len(evs) == 0 {
			return out, nil
		}
		for _, e := range evs {
			after = e.Cursor
			ic, ok, err := devchain.IntentConfirmedOf(e)
			if err != nil {
				return out, err
			}
			if !ok {
				continue
			}
			if ic.Group != group {
				continue
			}
			out.confirmed[ic.TxID]++
			out.creates[ic.TxID] = ic.Creates
			for _, s := range ic.Spends {
				out.spentBy[s] = append(out.spentBy[s], ic.TxID)
			}
		}
	}
}

// doubleSpends lists the states spent by more than one confirmed intent.
func (o onChain) doubleSpends() []string {
	var bad []string
	for s, by := range o.spentBy {
		if len(by) > 1 {
			bad = append(bad, fmt.Sprintf("%s spent by %v", s, by))
		}
	}
	sort.Strings(bad)
	return bad
}

// intentOnChain reads the privacygroup's intent record: found false when
// the chain says it is not confirmed.
func intentOnChain(ctx context.Context, dc *devchain.Client, group, txID string) (devchain.PrivacyIntent, bool, error) {
	args, _ := json.Marshal(map[string]string{"group": group, "txId": txID})
	raw, err := dc.Call(ctx, devchain.PrivacyGroupContract, "intent", args)
	if errors.Is(err, chain.ErrNotFound) || (err != nil && strings.Contains(err.Error(), "not confirmed")) {
		return devchain.PrivacyIntent{}, false, nil
	}
	if err != nil {
		return devchain.PrivacyIntent{}, false, err
	}
	var in devchain.PrivacyIntent
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, false, err
	}
	return in, true, nil
}

// receipt is ptx_getTransactionReceipt's answer (nil while pending).
type receipt struct {
	ID             string `json:"id"`
	Success        bool   `json:"success"`
	FailureMessage string `json:"failureMessage"`
}

// getReceipt reads txID's receipt at node i; nil while not final.
func getReceipt(ctx context.Context, c *procs.Committee, i int, txID string) (*receipt, error) {
	raw, err := c.RPC(ctx, i, "ptx_getTransactionReceipt", []string{txID})
	if err != nil {
		return nil, err
	}
	var r *receipt
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("receipt %s: %w: %s", txID, err, raw)
	}
	return r, nil
}

// statesSettle bounds the wait for every node to hold every created
// state: a node killed and restarted gets what was confirmed meanwhile
// from distributions resent with a backoff (up to 32 retry intervals)
// over a transport that redials it with one (up to 30s).
const statesSettle = 90 * time.Second

// missingStates waits (polling the running nodes' stores, up to
// statesSettle) until every node holds the created states of every
// confirmed intent, then stops every node and lists, per node, those it
// does not hold (or holds without data).
func missingStates(t *testing.T, ctx context.Context, c *procs.Committee, group string, oc onChain) ([]string, error) {
	start := time.Now()
	for {
		bad, err := lacking(ctx, c, group, oc, c.LiveStates)
		if err == nil && len(bad) == 0 {
			t.Logf("every node holds every created state %v after the load", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Since(start) > statesSettle {
			t.Logf("states still lacking after %v: %v (%v)", statesSettle, bad, err)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	c.Stop(ctx)
	bad, err := lacking(ctx, c, group, oc, c.States)
	if len(bad) > 0 {
		explainLacking(t, ctx, c, group, oc)
	}
	return bad, err
}

// lacking lists, per node, the created states of oc's confirmed intents
// that read does not return (or returns without data).
func lacking(ctx context.Context, c *procs.Committee, group string, oc onChain,
	read func(context.Context, int, string) ([]store.DistseqState, error)) ([]string, error) {
	var bad []string
	for i := range c.Nodes() {
		sts, err := read(ctx, i, group)
		if err != nil {
			return nil, err
		}
		have := map[string]bool{}
		for _, s := range sts {
			have[s.ID] = len(s.Data) > 0
		}
		n := 0
		for tx, cr := range oc.creates {
			for _, s := range cr {
				if !have[s] {
					n++
					if n <= 5 {
						bad = append(bad, fmt.Sprintf("node%d lacks %s created by %s", i+1, s, tx))
					}
				}
			}
		}
		if n > 5 {
			bad = append(bad, fmt.Sprintf("node%d lacks %d states in all", i+1, n))
		}
	}
	return bad, nil
}

// explainLacking logs, for each transaction whose states a node lacks,
// what every stopped node's store says of it: its intent, its dispatch,
// its distributions not yet acknowledged, the distributions received.
func explainLacking(t *testing.T, ctx context.Context, c *procs.Committee, group string, oc onChain) {
	t.Helper()
	txs := map[string]bool{}
	for i := range c.Nodes() {
		sts, err := c.States(ctx, i, group)
		if err != nil {
			t.Logf("node%d: %v", i+1, err)
			return
		}
		have := map[string]bool{}
		for _, s := range sts {
			have[s.ID] = len(s.Data) > 0
		}
		for tx, cr := range oc.creates {
			for _, s := range cr {
				if !have[s] {
					txs[tx] = true
				}
			}
		}
	}
	ids := slices.Sorted(maps.Keys(txs))
	if len(ids) > 3 {
		ids = ids[:3]
	}
	for i := range c.Nodes() {
		st, err := sqlite.Open(ctx, filepath.Join(c.Member(i).Data, "ordo.db"), sqlite.Options{})
		if err != nil {
			t.Logf("node%d: %v", i+1, err)
			continue
		}
		out, _ := st.DistseqPendingOutbox(ctx)
		disp, _ := st.DistseqOpenDispatches(ctx)
		t.Logf("node%d: %d distributions unacknowledged, %d dispatches open", i+1, len(out), len(disp))
		for _, tx := range ids {
			in, err := st.DistseqIntent(ctx, tx)
			var got []string
			for j := range c.Nodes() {
				if ok, _ := st.DistseqReceived(ctx, "dist/"+tx+"/"+c.NodeID(j)); ok {
					got = append(got, fmt.Sprintf("node%d", j+1))
				}
			}
			pend := 0
			for _, o := range out {
				if strings.HasPrefix(o.ID, "dist/"+tx+"/") {
					pend++
				}
			}
			t.Logf("node%d %s: intent %s %v, received %v, unacked outbox %d", i+1, tx, in.Status, err, got, pend)
		}
		_ = st.Close()
	}
}
