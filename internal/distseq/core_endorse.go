package distseq

import (
	"fmt"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"google.golang.org/protobuf/types/known/anypb"
)

// Endorsement (seed 003, "Transaction endorsement" and "Gather
// endorsements"): the coordinator asks every member (itself included) with
// the Request pattern; each endorser checks that the requester is the
// coordinator it would select for its own block range, and signs.

func (c *Core) endorseKey(t *ctx, m NodeID) string {
	return fmt.Sprintf("%s:%s:%d", t.assembleID, m, t.endN[m])
}

func (c *Core) requestEndorsements(k *contract, t *ctx) {
	for _, m := range k.g.members {
		c.requestEndorsement(k, t, m)
	}
}

func (c *Core) requestEndorsement(k *contract, t *ctx, m NodeID) {
	spec := &distseqpb.TransactionSpecification{TransactionId: t.id, Sender: string(t.sender), Spends: t.asm.Spends}
	for _, s := range t.asm.Creates {
		spec.Creates = append(spec.Creates, &distseqpb.DistributedState{Id: s.ID, Owner: s.Owner, Data: s.Data, CreatedBy: t.id})
	}
	specAny, _ := anypb.New(spec)
	sigAny, _ := anypb.New(&distseqpb.Endorsement{Member: string(t.sender), Signature: fmt.Sprintf("%x", t.senderSig)})
	key := c.endorseKey(t, m)
	env := c.envelope(k.addr, "")
	env.Body = &distseqpb.Envelope_EndorsementRequest{EndorsementRequest: &distseqpb.EndorsementRequest{
		IdempotencyKey: key, TransactionId: t.id, ContractAddress: k.addr, Party: string(m),
		TransactionSpecification: specAny, Signatures: []*anypb.Any{sigAny}, InputStates: c.inputStates(k, t.asm.Spends),
		Coordinator: string(c.cfg.Self), BlockHeight: int64(c.height)}}
	c.sendAssured("end:"+key, m, env, c.now.Add(2*c.hbTimeout()))
}

// retryEndorsements re-asks, with a new request, the endorsers that
// answered with a block height behind this coordinator's, once due.
// It also re-asks a member whose request went unanswered to its deadline
// (a partition, a member down): endorsements are needed until the
// threshold is met.
func (c *Core) retryEndorsements(k *contract, t *ctx) {
	for _, m := range k.g.members {
		if _, ok := t.ends[m]; ok {
			continue
		}
		at, waiting := t.retryEndAt[m]
		lapsed := !waiting && c.assured["end:"+c.endorseKey(t, m)] == nil
		if lapsed || (waiting && !c.now.Before(at)) {
			delete(t.retryEndAt, m)
			t.endN[m]++ // a new request: a refusal is not retried under the same id
			c.requestEndorsement(k, t, m)
		}
	}
}

// onEndorsementRequest is the endorser.
func (c *Core) onEndorsementRequest(from NodeID, env *distseqpb.Envelope, m *distseqpb.EndorsementRequest) {
	refuse := func(reason string, observed bool) {
		c.reply(from, env, func(r *distseqpb.Envelope) {
			e := &distseqpb.EndorsementError{TransactionId: m.GetTransactionId(), IdempotencyKey: m.GetIdempotencyKey(),
				ContractAddress: env.GetContractAddress(), RevertReason: &reason, Party: string(c.cfg.Self)}
			if observed {
				e.ObservedBlockHeight = int64(c.height)
			}
			r.Body = &distseqpb.Envelope_EndorsementError{EndorsementError: e}
		})
	}
	k := c.activate(env.GetContractAddress(), true)
	if k == nil || NodeID(m.GetParty()) != c.cfg.Self {
		refuse("not a member of the privacy group", false)
		return
	}
	if from != c.cfg.Self {
		c.heardFrom(k, from, "")
	}
	coord := NodeID(m.GetCoordinator())
	if c.rangeIndex(uint64(max(0, m.GetBlockHeight()))) != c.rangeIndex(c.height) {
		refuse(ReasonMismatchedBlockHeight, true)
		return
	}
	if coord != from || !c.acceptable(k, c.height, coord) {
		if c.ahead(k.addr, c.cfg.Self, coord) {
			c.ensureCoordinator(k) // this node should coordinate: say so with heartbeats
		}
		refuse(ReasonNotPreferred, true)
		return
	}
	spec := &distseqpb.TransactionSpecification{}
	if err := m.GetTransactionSpecification().UnmarshalTo(spec); err != nil || len(m.GetSignatures()) == 0 {
		refuse("malformed transaction specification", false)
		return
	}
	a := Assembly{Spends: spec.GetSpends()}
	for _, s := range spec.GetCreates() {
		a.Creates = append(a.Creates, StateRef{ID: s.GetId(), Owner: s.GetOwner(), Data: s.GetData()})
	}
	digest := c.cfg.Domain.Digest(k.addr, m.GetTransactionId(), a)
	sender := &distseqpb.Endorsement{}
	if err := m.GetSignatures()[0].UnmarshalTo(sender); err != nil || !c.verify(k, NodeID(sender.GetMember()), digest, sender.GetSignature()) || sender.GetMember() != spec.GetSender() {
		refuse("the sender's signature does not verify", false)
		return
	}
	if !k.loaded {
		// its own copies of the inputs are on their way (activate asked
		// for them): the coordinator's resend of the request is answered
		return
	}
	inputs, ok := c.endorsedInputs(k, from, a.Spends, m.GetInputStates())
	if !ok {
		// a speculative input this node neither holds nor endorsed the
		// creation of (or the coordinator's copy differs from the one it
		// endorsed): not answered until it holds the state, or endorsed
		// its creation; the coordinator's resend is answered then
		return
	}
	if err := c.cfg.Domain.CheckEndorsement(k.addr, NodeID(spec.GetSender()), inputs, a); err != nil {
		refuse(err.Error(), false)
		return
	}
	sig, err := c.cfg.Scheme.Sign(digest)
	if err != nil {
		refuse(err.Error(), false)
		return
	}
	c.remember(k, m.GetTransactionId(), a, digest)
	endAny, _ := anypb.New(&distseqpb.Endorsement{Member: string(c.cfg.Self), Signature: fmt.Sprintf("%x", sig)})
	c.reply(from, env, func(r *distseqpb.Envelope) {
		r.Body = &distseqpb.Envelope_EndorsementResponse{EndorsementResponse: &distseqpb.EndorsementResponse{
			TransactionId: m.GetTransactionId(), IdempotencyKey: m.GetIdempotencyKey(), ContractAddress: k.addr,
			Endorsement: endAny, Party: string(c.cfg.Self), AttestationRequestName: "endorse"}}
	})
}

// inputStates are the states ids name as the coordinator holds them
// (confirmed, or the speculative outputs of its graph), for the endorsers'
// ownership check.
func (c *Core) inputStates(k *contract, ids []string) []*anypb.Any {
	out := make([]*anypb.Any, 0, len(ids))
	for _, id := range ids {
		var ref StateRef
		switch {
		case k.states[id] != nil:
			ref = k.states[id].ref
		case k.coord != nil && k.coord.spec[id] != nil:
			ref = k.coord.spec[id].ref
		default:
			continue // the endorser judges on what it holds or endorsed
		}
		a, _ := anypb.New(&distseqpb.DistributedState{Id: ref.ID, Owner: ref.Owner, Data: ref.Data, CreatedBy: ref.CreatedBy})
		out = append(out, a)
	}
	return out
}

// endorsedInputs resolves the states an assembly spends (its states
// loaded): this endorser's own copy of a state it holds; else, for a
// speculative output, the copy it endorsed the creation of (the
// coordinator's copy in given, when there is one, must agree with it), or
// the copy of its own coordinator's graph when this node coordinates. The
// coordinator's word alone is never taken: ok is false when a spend is
// none of these, and the endorser does not answer yet.
func (c *Core) endorsedInputs(k *contract, from NodeID, spends []string, given []*anypb.Any) ([]StateRef, bool) {
	byID := map[string]StateRef{}
	for _, a := range given {
		s := &distseqpb.DistributedState{}
		if a.UnmarshalTo(s) == nil {
			byID[s.GetId()] = StateRef{ID: s.GetId(), Owner: s.GetOwner(), Data: s.GetData(), CreatedBy: s.GetCreatedBy()}
		}
	}
	out := make([]StateRef, 0, len(spends))
	for _, id := range spends {
		if h := k.states[id]; h != nil {
			out = append(out, h.ref)
			continue
		}
		if from == c.cfg.Self && k.coord != nil && k.coord.spec[id] != nil {
			out = append(out, k.coord.spec[id].ref)
			continue
		}
		ref, ok := k.endorsed.endorsedOutput(id)
		if claim, claimed := byID[id]; !ok || (claimed && !sameState(ref, claim)) {
			return nil, false
		}
		out = append(out, ref)
	}
	return out, true
}

// Endorsement refusal reasons an endorser gives.
const (
	ReasonMismatchedBlockHeight = "MismatchedBlockHeight"
	ReasonNotPreferred          = "NotPreferredCoordinator"
)

func (c *Core) verify(k *contract, m NodeID, digest [32]byte, sigHex string) bool {
	pk, ok := k.g.keys[m]
	if !ok {
		return false
	}
	sig, ok := decodeSig(sigHex)
	return ok && c.cfg.Scheme.Verify(pk, digest, sig)
}

func (c *Core) onEndorsementResponse(from NodeID, addr string, m *distseqpb.EndorsementResponse) {
	k, t := c.coordTx(addr, m.GetTransactionId())
	if t == nil || t.state != CAttestation || from != NodeID(m.GetParty()) || m.GetIdempotencyKey() != c.endorseKey(t, from) {
		return
	}
	c.answered("end:" + m.GetIdempotencyKey())
	e := &distseqpb.Endorsement{}
	if err := m.GetEndorsement().UnmarshalTo(e); err != nil || NodeID(e.GetMember()) != from {
		return
	}
	digest := c.cfg.Domain.Digest(k.addr, t.id, *t.asm)
	if !c.verify(k, from, digest, e.GetSignature()) {
		return
	}
	sig, _ := decodeSig(e.GetSignature())
	t.ends[from] = sig
	c.advance(k)
}

// onEndorsementError: a block-height disagreement is retried (endorser
// behind) or waited out (coordinator behind: its range ends); any other
// error takes the transaction and its dependants out of the graph, to be
// assembled again.
func (c *Core) onEndorsementError(from NodeID, addr string, m *distseqpb.EndorsementError) {
	k, t := c.coordTx(addr, m.GetTransactionId())
	if t == nil || t.state != CAttestation || from != NodeID(m.GetParty()) || m.GetIdempotencyKey() != c.endorseKey(t, from) {
		return
	}
	c.answered("end:" + m.GetIdempotencyKey())
	switch m.GetRevertReason() {
	case ReasonMismatchedBlockHeight, ReasonNotPreferred:
		if c.rangeIndex(uint64(max(0, m.GetObservedBlockHeight()))) > c.rangeIndex(c.height) {
			// this coordinator is behind: its own range boundary will
			// hand over; ask again only if it has not by then.
			t.retryEndAt[from] = c.now.Add(c.hbTimeout())
			return
		}
		t.retryEndAt[from] = c.now.Add(c.cfg.RetryInterval)
	default:
		c.requeue(k, t)
		c.pump(k)
	}
}
