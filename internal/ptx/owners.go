package ptx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// Owners and idempotency (issue 24): a state belongs to an owner qualified
// by the node that holds it ("alice@node1"); only a principal of that
// node configured to act for the owner sends from it; an idempotency key
// belongs to the principal that sent it.

// Error codes and data codes of sends.
const (
	// CodeConflict answers a send whose idempotency key this principal
	// used before for other content (data.code "idempotency_conflict"),
	// as /v1/transactions answers 409.
	CodeConflict = -32009
	// CodeRefused answers a send this node refuses to take: its from is
	// an owner the principal does not act for (data.code "not_owner") or
	// holds too few settled states (data.code "insufficient_funds").
	CodeRefused = -32010
)

// CheckOwnerName refuses an owner name that cannot be qualified: 1 to 64
// characters from [A-Za-z0-9._-] (no "@": the node qualifies it).
func CheckOwnerName(name string) error {
	if name == "" || len(name) > 64 || strings.IndexFunc(name, func(r rune) bool {
		return !ownerRune(r)
	}) >= 0 {
		return fmt.Errorf("an owner is 1 to 64 characters from [A-Za-z0-9._-], got %q", name)
	}
	return nil
}

func ownerRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return r == '.' || r == '_' || r == '-'
}

// qualify returns who ("name" or "name@node") qualified by its node, this
// node when it names none.
func qualify(who, self string) (name, owner string, err error) {
	name, node := who, self
	if n, nd, ok := token.SplitOwner(who); ok {
		name, node = n, nd
	} else if strings.Contains(who, "@") {
		return "", "", fmt.Errorf("%q is no owner: want name or name@node", who)
	}
	if err := CheckOwnerName(name); err != nil {
		return "", "", err
	}
	return name, name + "@" + node, nil
}

// actsFor reports whether principal p may spend for the local owner name:
// its own name, or one its configured owners list (or "*", every owner).
func (h Handler) actsFor(p auth.Principal, name string) bool {
	if p.Name == name {
		return true
	}
	os := h.Owners[p.Name]
	return slices.Contains(os, name) || slices.Contains(os, "*")
}

// scopedKey is the stored idempotency key: the principal's name (which
// holds no "/") then the caller's key, so that a key is unique per
// principal.
func scopedKey(p auth.Principal, key string) string {
	if key == "" {
		return ""
	}
	return p.Name + "/" + key
}

// callerKey is the key as its principal sent it.
func callerKey(stored string) string {
	if _, k, ok := strings.Cut(stored, "/"); ok {
		return k
	}
	return stored
}

// intent checks tx's from and data and returns the domain's intent: from
// qualified by this node (a principal acting for it), to qualified by a
// member node of the group (this node when it names none).
func (h Handler) intent(ctx context.Context, p auth.Principal, tx Tx) ([]byte, *Error) {
	self := string(h.B.ID())
	if tx.From == "" {
		return nil, invalid("from must name the owner whose states this spends (name, or name@" + self + ")")
	}
	name, from, err := qualify(tx.From, self)
	if err != nil {
		return nil, invalid("from: " + err.Error())
	}
	if from != name+"@"+self {
		return nil, refused("not_owner", from+" is an owner of another node: only that node's principals spend its states")
	}
	if !h.actsFor(p, name) {
		return nil, refused("not_owner", fmt.Sprintf("principal %s does not act for %s (ptx.owners)", p.Name, from))
	}
	var in token.Intent
	dec := json.NewDecoder(strings.NewReader(string(tx.Data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, invalid("data: want {\"to\": owner, \"amount\": n}: " + err.Error())
	}
	if in.From != "" && in.From != tx.From && in.From != from {
		return nil, invalid("data.from differs from the transaction's from")
	}
	in.From = from
	g, err := h.B.Intents().DistseqGroup(ctx, tx.To)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &Error{Code: CodeInvalidParams, Message: "no privacy group " + tx.To + " is known to this node", Data: map[string]string{"code": "no_such_group"}}
	} else if err != nil {
		return nil, engineError(err)
	}
	_, to, err := qualify(in.To, self)
	if err != nil {
		return nil, invalid("data.to: " + err.Error())
	}
	_, toNode, _ := token.SplitOwner(to)
	if !slices.ContainsFunc(g.Members, func(m store.DistseqMember) bool { return m.ID == toNode }) {
		return nil, invalid(fmt.Sprintf("data.to: %s is held by %s, no member of %s: nobody could spend it", to, toNode, tx.To))
	}
	in.To = to
	b, _ := json.Marshal(in)
	if _, err := token.ParseIntent(b); err != nil {
		return nil, &Error{Code: CodeInvalidParams, Message: err.Error(), Data: map[string]string{"code": "bad_intent"}}
	}
	return b, nil
}

// balances are the settled (confirmed, unspent) coins each owner holds on
// this node, by group, read once per call.
type balances map[string]map[string]uint64

// funded refuses an intent whose from holds fewer settled coins on this
// node than it sends (each intent on its own: the sends of one batch do
// not add up, and the assembly parks what the coins do not cover).
func (h Handler) funded(ctx context.Context, bal balances, contract string, intent []byte) *Error {
	in, err := token.ParseIntent(intent)
	if err != nil {
		return invalid(err.Error())
	}
	owners, ok := bal[contract]
	if !ok {
		sts, err := h.B.Intents().DistseqStates(ctx, contract, true)
		if err != nil {
			return engineError(err)
		}
		owners = map[string]uint64{}
		for _, s := range sts {
			ref := distseq.StateOf(s)
			owners[ref.Owner] += token.CoinOf(ref)
		}
		bal[contract] = owners
	}
	if have := owners[in.From]; have < in.Amount {
		return refused(token.ReasonInsufficient, fmt.Sprintf("%s holds %d in settled states of %s, %d wanted", in.From, have, contract, in.Amount))
	}
	return nil
}

func refused(code, msg string) *Error {
	return &Error{Code: CodeRefused, Message: msg, Data: map[string]string{"code": code}}
}

func conflict(key string) *Error {
	return &Error{Code: CodeConflict, Message: "idempotency key " + key + " was used by this principal for another transaction content",
		Data: map[string]string{"code": "idempotency_conflict"}}
}

// same reports whether rec holds the content of a send: its group, intent
// and kind.
func same(rec store.DistseqIntent, contract string, intent []byte, prepare bool) bool {
	return rec.Contract == contract && string(rec.Payload) == string(intent) && rec.Prepare == prepare
}
