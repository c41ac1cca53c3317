package distseq

import (
	"cmp"
	"slices"

	"github.com/ordolabs/ordo/internal/store"
)

// A parked intent (too few coins) reverts after ParkTimeout, but never
// while a dispatch it granted may still land: its coins may be missing
// because that dispatch spent them, and a Reverted intent must never be
// confirmed on chain. The sender keeps, durable with the intent, each
// assembly it granted a dispatch of (noteGrant, before the grant goes
// out): the states it spends and the transactions that create them. An
// assembly can no longer land once one of its states can never be spent
// by it: the chain spent it by another transaction (the base ledger
// refuses a state spent twice), or the state's creator was confirmed
// without creating it (another assembly of the creator landed; a
// transaction confirms once, and the domain names a state by its content,
// so another assembly's outputs carry other ids), or the creator is an
// intent of this node's reverted by its park with no grant left (never
// confirmed). Past ParkTimeout the
// sender reads those states, and those its creators created, from its
// store (EffectReadSpends, every ParkRetry), drops the assemblies that can
// no longer land, and reverts once none is left.

// noteGrant records that a dispatch of the assembly spending spends is
// granted; it reports whether t.granted changed (the intent's record must
// be committed before the grant goes out). An assembly that spends
// nothing can never be shown dead: it is kept, and the intent then never
// reverts by park.
func (c *Core) noteGrant(t *senderTx, spends []string) bool {
	set := slices.Compact(slices.Sorted(slices.Values(spends)))
	for _, g := range t.granted {
		if slices.Equal(g.Spends, set) {
			return false
		}
	}
	g := store.DistseqGrant{Spends: set}
	if g.Spends == nil {
		g.Spends = []string{}
	}
	namer, _ := c.cfg.Domain.(StateCreators)
	for _, id := range set {
		by := t.creators[id]
		if namer != nil {
			if named, ok := namer.Creator(id); ok {
				by = named // the id names its creator itself (and an assembly made before a restart)
			}
		}
		if by != "" {
			if g.Creators == nil {
				g.Creators = map[string]string{}
			}
			g.Creators[id] = by
		}
	}
	t.granted = append(t.granted, g)
	return true
}

// creatorsOf maps each of spends to its creator, as avail names it.
func creatorsOf(spends []string, avail []StateRef) map[string]string {
	m := map[string]string{}
	for _, s := range avail {
		if s.CreatedBy != "" && slices.Contains(spends, s.ID) {
			m[s.ID] = s.CreatedBy
		}
	}
	return m
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
	var ids, creators []string
	for _, g := range t.granted {
		ids = append(ids, g.Spends...)
		for _, by := range g.Creators {
			creators = append(creators, by)
		}
	}
	slices.Sort(ids)
	slices.Sort(creators)
	c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectReadSpends, Contract: t.contract, TxID: t.id,
		States: slices.Compact(ids), Creators: slices.Compact(creators)})
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
	found, confirmed := map[string]store.DistseqState{}, map[string]bool{}
	for _, s := range in.States {
		if s.Spent && s.SpentBy == t.id {
			return
		}
		found[s.ID] = s
	}
	for _, s := range in.Created {
		confirmed[s.CreatedBy] = true
		if _, ok := found[s.ID]; !ok {
			found[s.ID] = s // it exists: judged by its spent flag, not by its absence
		}
	}
	for _, by := range in.Reverted {
		confirmed[by] = true // final without any state: none of its states can appear
	}
	dead := func(g store.DistseqGrant) bool {
		return slices.ContainsFunc(g.Spends, func(id string) bool {
			s, ok := found[id]
			if !ok {
				return confirmed[g.Creators[id]]
			}
			return s.Spent
		})
	}
	live := slices.DeleteFunc(slices.Clone(t.granted), dead)
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
