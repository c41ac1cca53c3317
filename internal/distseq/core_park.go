package distseq

import (
	"cmp"
	"slices"
)

// A parked intent (too few coins) reverts after ParkTimeout, but never
// while a dispatch it granted may still land: its coins may be missing
// because that dispatch spent them, and a Reverted intent must never be
// confirmed on chain. The sender keeps, durable with the intent, the
// spends of each assembly it granted a dispatch of (noteGrant, before the
// grant goes out); an assembly can no longer land once the chain has spent
// one of its states by another transaction (the base ledger refuses a
// state spent twice). Past ParkTimeout the sender reads those states from
// its store (EffectReadSpends, every ParkRetry), drops the assemblies that
// can no longer land, and reverts once none is left.

// noteGrant records that a dispatch of the assembly spending spends is
// granted; it reports whether t.granted changed (the intent's record must
// be committed before the grant goes out). An assembly that spends
// nothing can never be shown dead: it is kept, and the intent then never
// reverts by park.
func (c *Core) noteGrant(t *senderTx, spends []string) bool {
	set := slices.Sorted(slices.Values(spends))
	set = slices.Compact(set)
	for _, g := range t.granted {
		if slices.Equal(g, set) {
			return false
		}
	}
	if set == nil {
		set = []string{}
	}
	t.granted = append(t.granted, set)
	return true
}

// parkExpired handles a Parked intent's ParkTimeout; it reports whether t
// is final now.
func (c *Core) parkExpired(t *senderTx) bool {
	if c.now.Sub(t.parkedAt) < c.cfg.ParkTimeout {
		return false
	}
	if len(t.granted) == 0 {
		c.revertParked(t)
		return true
	}
	if t.reading || c.now.Before(t.readAt) {
		return false
	}
	t.reading, t.readAt = true, c.now.Add(c.cfg.ParkRetry)
	var ids []string
	for _, g := range t.granted {
		ids = append(ids, g...)
	}
	slices.Sort(ids)
	c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectReadSpends, Contract: t.contract, TxID: t.id,
		States: slices.Compact(ids)})
	return false
}

func (c *Core) revertParked(t *senderTx) {
	c.finish(t, Reverted, cmp.Or(parkedReason(t.parkReason), "parked too long: the intent could not be assembled"))
}

// onSpendsRead drops the granted assemblies the chain has made unable to
// land, and reverts a Parked intent past ParkTimeout once none is left. A
// state spent by the intent itself means the chain confirmed it: that
// event is on its way.
func (c *Core) onSpendsRead(in InputSpendsRead) {
	t := c.txs[in.TxID]
	if t == nil || t.contract != in.Contract {
		return
	}
	t.reading = false
	dead := map[string]bool{}
	for _, s := range in.States {
		if !s.Spent {
			continue
		}
		if s.SpentBy == t.id {
			return
		}
		dead[s.ID] = true
	}
	live := slices.DeleteFunc(slices.Clone(t.granted), func(g []string) bool {
		return slices.ContainsFunc(g, func(id string) bool { return dead[id] })
	})
	if len(live) == len(t.granted) {
		return
	}
	t.granted = live
	if len(live) == 0 && t.state == Parked && c.now.Sub(t.parkedAt) >= c.cfg.ParkTimeout {
		c.revertParked(t)
		return
	}
	c.ready.Batch.Intents = append(c.ready.Batch.Intents, c.intentRecord(t, "pending", ""))
}
