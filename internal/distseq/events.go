package distseq

import (
	"encoding/json"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/store"
)

// DecodeEvent reads a devchain privacygroup event (GroupDeployed,
// StatesMinted, IntentConfirmed) as the core's ChainEvent; any other event
// is not one (false). The indexer hands the core final blocks only.
func DecodeEvent(e chain.Event) (ChainEvent, bool) {
	if e.Contract != devchain.PrivacyGroupContract {
		return ChainEvent{}, false
	}
	switch e.Name {
	case "GroupDeployed":
		var g devchain.PrivacyGroupInfo
		if json.Unmarshal(e.Data, &g) != nil {
			return ChainEvent{}, false
		}
		rec := store.DistseqGroup{Contract: g.Group, Threshold: g.Threshold, Height: e.Height}
		for _, m := range g.Members {
			rec.Members = append(rec.Members, store.DistseqMember{ID: m.ID, PublicKey: m.PublicKey})
		}
		return ChainEvent{Kind: EventGroupDeployed, Contract: g.Group, Height: e.Height, Group: rec}, true
	case "StatesMinted":
		var m devchain.StatesMinted
		if json.Unmarshal(e.Data, &m) != nil {
			return ChainEvent{}, false
		}
		ce := ChainEvent{Kind: EventStatesMinted, Contract: m.Group, Height: e.Height}
		for _, s := range m.Minted {
			ce.States = append(ce.States, StateRef{ID: s.ID, Owner: s.Owner, Data: []byte(s.Data)})
		}
		return ce, true
	case "IntentConfirmed":
		var ic devchain.IntentConfirmed
		if json.Unmarshal(e.Data, &ic) != nil {
			return ChainEvent{}, false
		}
		return ChainEvent{Kind: EventIntentConfirmed, Contract: ic.Group, Height: e.Height, TxID: ic.TxID,
			Spends: ic.Spends, Creates: ic.Creates, Digest: ic.Digest}, true
	}
	return ChainEvent{}, false
}
