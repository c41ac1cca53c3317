package token

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
)

// Intent is a transfer of Amount from From's coins to To. From is an
// owner qualified by its node ("alice@node1"); To names the recipient (its
// node qualifies it, as From).
type Intent struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Amount uint64 `json:"amount"`
}

// ReasonInsufficient starts the reason of an intent whose from holds too
// few coins: the API refuses it at intake with this code, and the sender
// reverts with it an intent parked until ParkTimeout for want of them.
const ReasonInsufficient = "insufficient_funds"

// ReasonNotOwner starts the reason an endorser refuses an assembly that
// spends a state its sender does not hold for one owner.
const ReasonNotOwner = "not_owner"

// SplitOwner splits an owner "name@node" into its name and node; ok is
// false for an owner not qualified by a node.
func SplitOwner(owner string) (name, node string, ok bool) {
	i := strings.LastIndexByte(owner, '@')
	if i <= 0 || i == len(owner)-1 {
		return "", "", false
	}
	return owner[:i], owner[i+1:], true
}

// Coin is a coin state's data.
type Coin struct {
	Amount uint64 `json:"amount"`
}

// MaxAmount bounds an intent's amount (sums stay far from overflow).
const MaxAmount = 1 << 48

// Domain is the token domain; its zero value is ready to use (on
// devchain's privacygroup).
type Domain struct {
	// Ledger encodes the base ledger's digest and confirm call: nil is
	// devchain's privacygroup (PrivacyDigest, JSON args); an EVM chain's
	// PrivacyGroup contract has its own (package distseq/evmledger).
	Ledger Ledger
}

// Ledger is a base ledger's encoding of an intent: the digest the
// sender and the endorsers sign, and the args of the confirm call that
// carries the endorsements. Both are pure.
type Ledger interface {
	Digest(group, txID string, spends []string, creates []distseq.StateRef) [32]byte
	ConfirmArgs(group, txID string, spends []string, creates []distseq.StateRef, ends []distseq.Endorsement) ([]byte, error)
}

var _ distseq.Domain = Domain{}

// ErrIntent is returned for an intent that can never be assembled.
var ErrIntent = errors.New("token: invalid intent")

// ParseIntent decodes and checks an intent.
func ParseIntent(b []byte) (Intent, error) {
	var in Intent
	if err := json.Unmarshal(b, &in); err != nil {
		return Intent{}, fmt.Errorf("%w: %w", ErrIntent, err)
	}
	if _, _, ok := SplitOwner(in.From); !ok || len(in.From) > devchain.MaxPrivacyID || in.To == "" || len(in.To) > devchain.MaxPrivacyID || in.Amount == 0 || in.Amount > MaxAmount {
		return Intent{}, fmt.Errorf("%w: want {\"from\": name@node, \"to\": a name of 1-%d bytes, \"amount\": 1..%d}", ErrIntent, devchain.MaxPrivacyID, uint64(MaxAmount))
	}
	return in, nil
}

// CheckIntent refuses an intent that can never be assembled.
func (Domain) CheckIntent(b []byte) error {
	_, err := ParseIntent(b)
	return err
}

// CoinOf reads a coin's amount; a state that is no coin is worth 0.
func CoinOf(s distseq.StateRef) uint64 {
	var c Coin
	if json.Unmarshal(s.Data, &c) != nil {
		return 0
	}
	return c.Amount
}

// Covers reports whether from's coins offered sum to the intent's amount.
func (Domain) Covers(b []byte, offered []distseq.StateRef) bool {
	in, err := ParseIntent(b)
	if err != nil {
		return true // nothing covers it better: the sender will refuse it
	}
	var sum uint64
	for _, s := range offered {
		if s.Owner != in.From {
			continue
		}
		if sum += CoinOf(s); sum >= in.Amount {
			return true
		}
	}
	return false
}

// Usable reports whether the intent may spend s: a coin of its from.
func (Domain) Usable(b []byte, s distseq.StateRef) bool {
	in, err := ParseIntent(b)
	return err != nil || (s.Owner == in.From && CoinOf(s) > 0)
}

// Assemble spends coins of avail in order until they cover the amount.
func (Domain) Assemble(_, txID string, sender distseq.NodeID, b []byte, avail []distseq.StateRef) (distseq.Assembly, error) {
	in, err := ParseIntent(b)
	if err != nil {
		return distseq.Assembly{}, err
	}
	if _, node, _ := SplitOwner(in.From); node != string(sender) {
		return distseq.Assembly{}, fmt.Errorf("%s: %s is held by node %s, not by %s (%w)", ReasonNotOwner, in.From, node, sender, ErrIntent)
	}
	var a distseq.Assembly
	var sum uint64
	for _, s := range avail {
		v := CoinOf(s)
		if v == 0 || s.Owner != in.From {
			continue
		}
		a.Spends = append(a.Spends, s.ID)
		sum += v
		if sum >= in.Amount {
			break
		}
	}
	if sum < in.Amount {
		return distseq.Assembly{}, fmt.Errorf("%w: %s: %s has %d available, %d wanted", distseq.ErrNotReady, ReasonInsufficient, in.From, sum, in.Amount)
	}
	a.Creates = append(a.Creates, created(txID, 0, in.To, in.Amount))
	if sum > in.Amount {
		a.Creates = append(a.Creates, created(txID, 1, in.From, sum-in.Amount))
	}
	return a, nil
}

// CheckEndorsement is the endorser's check before it signs (Paladin's
// noto notary's): every input is a coin of one owner qualified by the
// sending node, and the outputs' amounts equal the inputs'.
func (Domain) CheckEndorsement(_ string, sender distseq.NodeID, inputs []distseq.StateRef, a distseq.Assembly) error {
	var in, out uint64
	owner := ""
	for _, s := range inputs {
		_, node, ok := SplitOwner(s.Owner)
		switch {
		case !ok || node != string(sender):
			return fmt.Errorf("%s: state %s belongs to %q, not to an owner of the sending node %s", ReasonNotOwner, s.ID, s.Owner, sender)
		case owner != "" && s.Owner != owner:
			return fmt.Errorf("%s: the inputs belong to %s and %s", ReasonNotOwner, owner, s.Owner)
		}
		owner = s.Owner
		in += CoinOf(s)
	}
	for _, s := range a.Creates {
		out += CoinOf(s)
	}
	if in != out {
		return fmt.Errorf("unbalanced: the inputs hold %d, the outputs %d", in, out)
	}
	return nil
}

// Creator implements distseq.StateCreators: the transaction named by a
// created coin's id ("<txId>.<n>.<hash>"); a minted coin names none.
func (Domain) Creator(id string) (string, bool) {
	i := strings.LastIndexByte(id, '.')
	if i < 0 || len(id)-i-1 != 12 {
		return "", false
	}
	if _, err := hex.DecodeString(id[i+1:]); err != nil {
		return "", false
	}
	j := strings.LastIndexByte(id[:i], '.')
	if j <= 0 || j+1 == i || strings.Trim(id[j+1:i], "0123456789") != "" {
		return "", false
	}
	return id[:j], true
}

// created is output n of transaction txID: a coin whose id names its
// content.
func created(txID string, n int, owner string, amount uint64) distseq.StateRef {
	h := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%d", n, owner, amount))
	return coin(fmt.Sprintf("%s.%d.%s", txID, n, hex.EncodeToString(h[:6])), owner, amount)
}

func coin(id, owner string, amount uint64) distseq.StateRef {
	data, _ := json.Marshal(Coin{Amount: amount})
	return distseq.StateRef{ID: id, Owner: owner, Data: data}
}

// Mint returns coins to mint, for tests, simulations and the demo.
func Mint(prefix, owner string, amounts ...uint64) []distseq.StateRef {
	out := make([]distseq.StateRef, len(amounts))
	for i, a := range amounts {
		out[i] = coin(fmt.Sprintf("%s%d", prefix, i), owner, a)
	}
	return out
}

func states(refs []distseq.StateRef) []devchain.PrivacyState {
	out := make([]devchain.PrivacyState, len(refs))
	for i, s := range refs {
		out[i] = devchain.PrivacyState{ID: s.ID, Owner: s.Owner, Data: json.RawMessage(s.Data)}
	}
	return out
}

// Digest is the base ledger's digest of the assembly (devchain's
// PrivacyDigest without a Ledger).
func (d Domain) Digest(contract, txID string, a distseq.Assembly) [32]byte {
	if d.Ledger != nil {
		return d.Ledger.Digest(contract, txID, a.Spends, a.Creates)
	}
	return devchain.PrivacyDigest(contract, txID, a.Spends, states(a.Creates))
}

// ConfirmArgs is the privacygroup confirm call.
type ConfirmArgs struct {
	Group        string                        `json:"group"`
	TxID         string                        `json:"txId"`
	Spends       []string                      `json:"spends"`
	Creates      []devchain.PrivacyState       `json:"creates"`
	Endorsements []devchain.PrivacyEndorsement `json:"endorsements"`
}

// Confirm encodes the privacygroup confirm call's args (devchain's
// without a Ledger).
func (d Domain) Confirm(contract, txID string, a distseq.Assembly, ends []distseq.Endorsement) ([]byte, error) {
	if d.Ledger != nil {
		return d.Ledger.ConfirmArgs(contract, txID, a.Spends, a.Creates, ends)
	}
	args := ConfirmArgs{Group: contract, TxID: txID, Spends: a.Spends, Creates: states(a.Creates)}
	if args.Spends == nil {
		args.Spends = []string{}
	}
	for _, e := range ends {
		args.Endorsements = append(args.Endorsements, devchain.PrivacyEndorsement{Member: string(e.Member), Signature: hex.EncodeToString(e.Signature)})
	}
	return json.Marshal(args)
}

// Functions ptx_call answers.
const (
	// CallBalanceOf takes {"owner"} and answers {"owner", "balance",
	// "coins"}: the sum and count of the owner's unspent coins.
	CallBalanceOf = "balanceOf"
	// CallCoins takes {"owner"} (empty: every owner) and answers the
	// unspent coins, oldest first.
	CallCoins = "coins"
)

// ErrCall is returned for a call the domain does not answer or bad args.
var ErrCall = errors.New("token: invalid call")

// Balance is the answer to balanceOf.
type Balance struct {
	Owner   string `json:"owner"`
	Balance uint64 `json:"balance"`
	Coins   int    `json:"coins"`
}

// CoinView is a coin as the coins call lists it.
type CoinView struct {
	ID        string `json:"id"`
	Owner     string `json:"owner,omitempty"`
	Amount    uint64 `json:"amount"`
	CreatedBy string `json:"createdBy,omitempty"`
}

// Call answers a read-only function over unspent, the group's unspent
// states this node holds (a private call: nothing goes to the chain).
func Call(function string, args []byte, unspent []distseq.StateRef) (any, error) {
	var a struct {
		Owner string `json:"owner"`
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, fmt.Errorf("%w: data: %w", ErrCall, err)
		}
	}
	switch function {
	case CallBalanceOf:
		if a.Owner == "" {
			return nil, fmt.Errorf("%w: balanceOf wants {\"owner\": a name}", ErrCall)
		}
		b := Balance{Owner: a.Owner}
		for _, s := range unspent {
			if v := CoinOf(s); v > 0 && s.Owner == a.Owner {
				b.Balance += v
				b.Coins++
			}
		}
		return b, nil
	case CallCoins:
		out := []CoinView{}
		for _, s := range unspent {
			if v := CoinOf(s); v > 0 && (a.Owner == "" || s.Owner == a.Owner) {
				out = append(out, CoinView{ID: s.ID, Owner: s.Owner, Amount: v, CreatedBy: s.CreatedBy})
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: the token domain answers %s and %s, not %q", ErrCall, CallBalanceOf, CallCoins, function)
}
