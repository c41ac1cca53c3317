package procs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/procs"
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

// missingStates stops every node and lists, per node, the created
// states of confirmed intents it does not hold (or holds without data).
func missingStates(ctx context.Context, c *procs.Committee, group string, oc onChain) ([]string, error) {
	c.Stop(ctx)
	var bad []string
	for i := range c.Nodes() {
		sts, err := c.States(ctx, i, group)
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
