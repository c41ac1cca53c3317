package chaintest

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// pgMember is a committee member of the suite's groups: its id and key.
type pgMember struct {
	id  string
	key ed25519.PrivateKey
}

func newPGMember(id string) pgMember {
	return pgMember{id: id, key: chain.KeyFromSeed("chaintest/privacygroup/" + id)}
}

func (m pgMember) pub() string { return hex.EncodeToString(m.key.Public().(ed25519.PublicKey)) }

func (c *caller) pg(method string, args any) chain.Hash {
	c.e.t.Helper()
	s, ok := args.(string)
	if !ok {
		s = c.e.mustJSON(args)
	}
	return c.send(devchain.PrivacyGroupContract, method, s)
}

// pgDeployArgs is a deploy of group with members and, when threshold > 0,
// that threshold.
func pgDeployArgs(group string, threshold int, ms ...pgMember) map[string]any {
	list := make([]devchain.PrivacyMember, 0, len(ms))
	for _, m := range ms {
		list = append(list, devchain.PrivacyMember{ID: m.id, PublicKey: m.pub()})
	}
	a := map[string]any{"group": group, "members": list}
	if threshold > 0 {
		a["threshold"] = threshold
	}
	return a
}

// pgState is a state to create with data {"v": v}.
func pgState(id string, v int) devchain.PrivacyState {
	return devchain.PrivacyState{ID: id, Data: json.RawMessage(fmt.Sprintf(`{"v":%d}`, v))}
}

// pgConfirmArgs is a confirm endorsed by signers over its own digest.
func pgConfirmArgs(group, txID string, spends []string, creates []devchain.PrivacyState, signers ...pgMember) map[string]any {
	d := devchain.PrivacyDigest(group, txID, spends, creates)
	var es []devchain.PrivacyEndorsement
	for _, m := range signers {
		es = append(es, devchain.EndorsePrivacy(m.id, m.key, d))
	}
	if spends == nil {
		spends = []string{}
	}
	if creates == nil {
		creates = []devchain.PrivacyState{}
	}
	return map[string]any{"group": group, "txId": txID, "spends": spends, "creates": creates, "endorsements": es}
}

func (e *env) pgStateOf(group, id string) devchain.PrivacyStateRecord {
	e.t.Helper()
	var v devchain.PrivacyStateRecord
	e.mustRead(devchain.PrivacyGroupContract, "state", fmt.Sprintf(`{"group":%q,"id":%q}`, group, id), &v)
	return v
}

func (e *env) pgIntent(group, txID string) (devchain.PrivacyIntent, bool) {
	e.t.Helper()
	raw, err := e.read(devchain.PrivacyGroupContract, "intent", fmt.Sprintf(`{"group":%q,"txId":%q}`, group, txID))
	if errors.Is(err, chain.ErrNotFound) {
		return devchain.PrivacyIntent{}, false
	}
	var v devchain.PrivacyIntent
	if err != nil || json.Unmarshal(raw, &v) != nil {
		e.t.Fatalf("intent %s/%s: %s, %v", group, txID, raw, err)
	}
	return v, true
}

func (e *env) pgNoState(group, id string) {
	e.t.Helper()
	if raw, err := e.read(devchain.PrivacyGroupContract, "state", fmt.Sprintf(`{"group":%q,"id":%q}`, group, id)); !errors.Is(err, chain.ErrNotFound) {
		e.t.Fatalf("state %s/%s: %s, %v; want not found", group, id, raw, err)
	}
}

// wantSpent checks whether state id of group is spent, and by which txId.
func (e *env) wantSpent(group, id string, spent bool, by string) {
	e.t.Helper()
	if s := e.pgStateOf(group, id); s.Spent != spent || s.SpentBy != by {
		e.t.Fatalf("state %s/%s: spent %v by %q, want %v by %q", group, id, s.Spent, s.SpentBy, spent, by)
	}
}

func pgConfirmedEvent(group, txID string, spends []string, creates []devchain.PrivacyState) string {
	ids := make([]string, len(creates))
	for i, c := range creates {
		ids[i] = c.ID
	}
	d := devchain.PrivacyDigest(group, txID, spends, creates)
	b, _ := json.Marshal(devchain.IntentConfirmed{Group: group, TxID: txID, Spends: spends, Creates: ids, Digest: hex.EncodeToString(d[:])})
	return string(b)
}

// testPrivacyGroup: the privacygroup contract's deploy, mint and confirm with
// every failure reason, its events and reads, the threshold, chained spends
// in one block, a reorg that frees a confirm's states, and a restart.
func testPrivacyGroup(t *testing.T, f Factory) {
	e := newEnv(t, f)
	dep, other := e.caller(e.dev[0]), e.caller(e.dev[1])
	A, B, C, D := newPGMember("A"), newPGMember("B"), newPGMember("C"), newPGMember("D")
	pg := devchain.PrivacyGroupContract

	t.Run("deploy", func(t *testing.T) {
		d1 := dep.pg(devchain.PrivacyDeploy, pgDeployArgs("g1", 0, A, B, C))
		d2 := other.pg(devchain.PrivacyDeploy, pgDeployArgs("g2", 2, A, B, C))
		dup := other.pg(devchain.PrivacyDeploy, pgDeployArgs("g1", 0, D))
		e.mine()
		want := devchain.PrivacyGroupInfo{Group: "g1", Deployer: dep.from, Threshold: 3,
			Members: []devchain.PrivacyMember{{ID: "A", PublicKey: A.pub()}, {ID: "B", PublicKey: B.pub()}, {ID: "C", PublicKey: C.pub()}}}
		e.wantEvent(d1, pg, "GroupDeployed", e.mustJSON(want))
		e.wantIncluded(d2, true, "")
		e.wantIncluded(dup, false, devchain.ReasonGroupExists)
		e.wantNoEvents(dup)
		var got devchain.PrivacyGroupInfo
		e.mustRead(pg, "group", `{"group":"g1"}`, &got)
		if e.mustJSON(got) != e.mustJSON(want) {
			t.Fatalf("group g1 %+v, want %+v", got, want)
		}
		e.mustRead(pg, "group", `{"group":"g2"}`, &got)
		if got.Threshold != 2 || got.Deployer != other.from || len(got.Members) != 3 {
			t.Fatalf("group g2 %+v", got)
		}
	})

	t.Run("mint", func(t *testing.T) {
		m := dep.pg(devchain.PrivacyMint, map[string]any{"group": "g1", "states": []devchain.PrivacyState{
			pgState("m1", 1), pgState("m2", 2), pgState("m3", 3), {ID: "m4", Owner: "A", Data: json.RawMessage(`{ "v" : 4 }`)}}})
		notDep := other.pg(devchain.PrivacyMint, map[string]any{"group": "g1", "states": []devchain.PrivacyState{pgState("x", 1)}})
		noGroup := dep.pg(devchain.PrivacyMint, map[string]any{"group": "nope", "states": []devchain.PrivacyState{pgState("x", 1)}})
		again := dep.pg(devchain.PrivacyMint, map[string]any{"group": "g1", "states": []devchain.PrivacyState{pgState("y", 1), pgState("m1", 1)}})
		g2 := other.pg(devchain.PrivacyMint, map[string]any{"group": "g2", "states": []devchain.PrivacyState{pgState("m1", 9), pgState("n1", 1)}})
		blk := e.mine()
		e.wantEvent(m, pg, "StatesMinted", `{"group":"g1","states":["m1","m2","m3","m4"],"minted":[{"id":"m1","data":{"v":1}},{"id":"m2","data":{"v":2}},{"id":"m3","data":{"v":3}},{"id":"m4","owner":"A","data":{"v":4}}]}`)
		e.wantIncluded(notDep, false, devchain.ReasonNotDeployer)
		e.wantIncluded(noGroup, false, devchain.ReasonNoSuchGroup)
		e.wantIncluded(again, false, devchain.ReasonStateExists)
		e.wantEvent(g2, pg, "StatesMinted", `{"group":"g2","states":["m1","n1"],"minted":[{"id":"m1","data":{"v":9}},{"id":"n1","data":{"v":1}}]}`)
		for _, h := range []chain.Hash{notDep, noGroup, again} {
			e.wantNoEvents(h)
		}
		e.pgNoState("g1", "y") // all or none
		e.pgNoState("g1", "x")
		s := e.pgStateOf("g1", "m4")
		if s.ID != "m4" || s.Owner != "A" || string(s.Data) != `{"v":4}` || s.Spent || s.CreatedBy != "" || s.Height != blk.Height {
			t.Fatalf("state m4 %+v", s)
		}
		if s := e.pgStateOf("g2", "m1"); string(s.Data) != `{"v":9}` {
			t.Fatalf("g2's m1 %+v: groups share states", s)
		}
	})

	t.Run("confirm", func(t *testing.T) {
		c1 := other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g1", "t1", []string{"m1"}, []devchain.PrivacyState{pgState("c1", 10)}, A, B, C))
		blk := e.mine()
		e.wantEvent(c1, pg, "IntentConfirmed", pgConfirmedEvent("g1", "t1", []string{"m1"}, []devchain.PrivacyState{pgState("c1", 10)}))
		e.wantSpent("g1", "m1", true, "t1")
		if s := e.pgStateOf("g1", "c1"); s.CreatedBy != "t1" || s.Spent || s.Height != blk.Height || string(s.Data) != `{"v":10}` {
			t.Fatalf("created state %+v", s)
		}
		in, ok := e.pgIntent("g1", "t1")
		if !ok || in.Height != blk.Height || in.TxHash != c1 || strings.Join(in.Endorsers, ",") != "A,B,C" ||
			strings.Join(in.Spends, ",") != "m1" || strings.Join(in.Creates, ",") != "c1" {
			t.Fatalf("intent t1 %+v found %v", in, ok)
		}
		if _, ok := e.pgIntent("g1", "never"); ok {
			t.Fatal("an intent never confirmed is found")
		}

		all := []pgMember{A, B, C}
		doubleSpend := pgConfirmArgs("g1", "t2", []string{"m1"}, nil, all...)
		badSig := pgConfirmArgs("g1", "t3", []string{"m2"}, nil, A, B, C)
		badSig["endorsements"].([]devchain.PrivacyEndorsement)[1].Signature = pgConfirmArgs("g1", "t3x", []string{"m2"}, nil, B)["endorsements"].([]devchain.PrivacyEndorsement)[0].Signature
		dupMember := pgConfirmArgs("g1", "t4", []string{"m2"}, nil, A, B, B)
		outsider := pgConfirmArgs("g1", "t5", []string{"m2"}, nil, A, B, D)
		tooFew := pgConfirmArgs("g1", "t6", []string{"m2"}, nil, A, B)
		// The first spend is fine, the second fails: the first stays unspent.
		partial := pgConfirmArgs("g1", "t7", []string{"m2", "m1"}, []devchain.PrivacyState{pgState("p", 1)}, all...)
		cases := []struct {
			args   any
			reason string
		}{
			{doubleSpend, devchain.ReasonStateSpent},
			{pgConfirmArgs("g1", "t1", []string{"m2"}, nil, all...), devchain.ReasonIntentConfirmed},
			{pgConfirmArgs("g1", "t8", []string{"zz"}, nil, all...), devchain.ReasonNoSuchState},
			{pgConfirmArgs("g1", "t9", []string{"m2"}, []devchain.PrivacyState{pgState("m3", 1)}, all...), devchain.ReasonStateExists},
			{pgConfirmArgs("g1", "t9", []string{"m2"}, []devchain.PrivacyState{pgState("c1", 1)}, all...), devchain.ReasonStateExists},
			{pgConfirmArgs("g1", "t10", []string{"m2", "m2"}, nil, all...), devchain.ReasonStateSpent},
			{pgConfirmArgs("nope", "t11", nil, nil, all...), devchain.ReasonNoSuchGroup},
			{badSig, devchain.ReasonEndorsements},
			{dupMember, devchain.ReasonEndorsements},
			{outsider, devchain.ReasonEndorsements},
			{tooFew, devchain.ReasonEndorsements},
			{partial, devchain.ReasonStateSpent},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, other.pg(devchain.PrivacyConfirm, c.args))
		}
		e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
			e.wantNoEvents(hs[i])
		}
		e.wantSpent("g1", "m2", false, "")
		e.pgNoState("g1", "p")
		for _, tx := range []string{"t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10"} {
			if _, ok := e.pgIntent("g1", tx); ok {
				t.Fatalf("refused intent %s is confirmed", tx)
			}
		}
		// An intent with no spends that only creates.
		c2 := other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g1", "t12", nil, []devchain.PrivacyState{pgState("c2", 1)}, all...))
		e.mine()
		e.wantEvent(c2, pg, "IntentConfirmed", pgConfirmedEvent("g1", "t12", []string{}, []devchain.PrivacyState{pgState("c2", 1)}))
	})

	t.Run("threshold", func(t *testing.T) {
		two := other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g2", "t1", []string{"m1"}, nil, C, A))
		one := other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g2", "t2", []string{"n1"}, nil, B))
		e.mine()
		e.wantEvent(two, pg, "IntentConfirmed", pgConfirmedEvent("g2", "t1", []string{"m1"}, []devchain.PrivacyState{}))
		e.wantIncluded(one, false, devchain.ReasonEndorsements)
		e.wantSpent("g2", "n1", false, "")
		// Same txId in another group is another intent.
		if _, ok := e.pgIntent("g1", "t1"); !ok {
			t.Fatal("g1's t1 lost")
		}
	})

	t.Run("chained spends in one block", func(t *testing.T) {
		all := []pgMember{A, B, C}
		var hs []chain.Hash
		prev := "m3"
		for i := range 5 {
			next := fmt.Sprintf("k%d", i)
			hs = append(hs, other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g1", "chain"+next, []string{prev}, []devchain.PrivacyState{pgState(next, i)}, all...)))
			prev = next
		}
		// A conflicting spend of k1 after its chain spent it.
		conflict := other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g1", "conflict", []string{"k1"}, nil, all...))
		blk := e.mine()
		for i, h := range hs {
			st := e.wantIncluded(h, true, "")
			if st.Height != blk.Height {
				t.Fatalf("confirm %d in block %d, want %d", i, st.Height, blk.Height)
			}
		}
		e.wantIncluded(conflict, false, devchain.ReasonStateSpent)
		e.wantSpent("g1", "k3", true, "chaink4")
		e.wantSpent("g1", "k4", false, "")
	})

	t.Run("reads", func(t *testing.T) {
		for _, c := range []struct {
			name, method, args string
			want               error
		}{
			{"unknown read", "groups", `{}`, chain.ErrUnknownMethod},
			{"no group", "group", `{"group":"nope"}`, chain.ErrNotFound},
			{"no state", "state", `{"group":"g1","id":"nope"}`, chain.ErrNotFound},
			{"state of no group", "state", `{"group":"nope","id":"m1"}`, chain.ErrNotFound},
			{"no intent", "intent", `{"group":"g1","txId":"nope"}`, chain.ErrNotFound},
			{"bad group", "group", `{"group":"G"}`, chain.ErrCallFailed},
			{"unknown field", "state", `{"group":"g1","id":"m1","x":1}`, chain.ErrCallFailed},
			{"empty id", "state", `{"group":"g1","id":""}`, chain.ErrCallFailed},
			{"no txId", "intent", `{"group":"g1"}`, chain.ErrCallFailed},
		} {
			if _, err := e.read(pg, c.method, c.args); !errors.Is(err, c.want) {
				t.Fatalf("Call %s = %v, want %v", c.name, err, c.want)
			}
		}
	})

	t.Run("malformed", func(t *testing.T) {
		key := A.pub()
		sig := strings.Repeat("ab", 64)
		const (
			group = "privacygroup: group must be 1-64 characters of [a-z0-9_.-]"
			mems  = "privacygroup: members must be a list of 1-64"
			pub   = "privacygroup: a member's publicKey must be 64 characters of lowercase hex"
			thr   = "privacygroup: threshold must be an integer from 1 to the number of members"
			ends  = "privacygroup: endorsements must be a list of 1-64"
		)
		cases := []struct{ method, args, reason string }{
			{devchain.PrivacyDeploy, ``, "privacygroup: deploy args must be a JSON object"},
			{devchain.PrivacyDeploy, `{"members":[]}`, group},
			{devchain.PrivacyDeploy, `{"group":"a/b","members":[]}`, group},
			{devchain.PrivacyDeploy, `{"group":"z","members":[]}`, mems},
			{devchain.PrivacyDeploy, `{"group":"z"}`, mems},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + strings.ToUpper(key) + `"}]}`, pub},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + key[:62] + `"}]}`, pub},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"","publicKey":"` + key + `"}]}`, "privacygroup: a member's id must be a string of 1-128 bytes"},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + key + `","x":1}]}`, `privacygroup: a member has an unknown field "x"`},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + key + `"},{"id":"A","publicKey":"` + B.pub() + `"}]}`, "privacygroup: members must have distinct ids and keys"},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + key + `"},{"id":"B","publicKey":"` + key + `"}]}`, "privacygroup: members must have distinct ids and keys"},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + key + `"}],"threshold":2}`, thr},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + key + `"}],"threshold":0}`, thr},
			{devchain.PrivacyDeploy, `{"group":"z","members":[{"id":"A","publicKey":"` + key + `"}],"threshold":null}`, thr},
			{devchain.PrivacyMint, `{"group":"g1","states":[]}`, "privacygroup: states must be a list of 1-64"},
			{devchain.PrivacyMint, `{"group":"g1","states":[{"id":"q"}]}`, "privacygroup: a state's data is required: any JSON of at most 4096 bytes"},
			{devchain.PrivacyMint, `{"group":"g1","states":[{"id":"q","data":1,"owner":5}]}`, "privacygroup: a state's owner must be a string of at most 128 bytes"},
			{devchain.PrivacyMint, `{"group":"g1","states":[{"id":"q","data":1},{"id":"q","data":2}]}`, devchain.ReasonStateExists},
			{devchain.PrivacyConfirm, `{"group":"g1","txId":"q","endorsements":[]}`, ends},
			{devchain.PrivacyConfirm, `{"group":"g1","txId":"q"}`, ends},
			{devchain.PrivacyConfirm, `{"group":"g1","endorsements":[{"member":"A","signature":"` + sig + `"}]}`, "privacygroup: txId must be a string of 1-128 bytes"},
			{devchain.PrivacyConfirm, `{"group":"g1","txId":"q","spends":"m1","endorsements":[{"member":"A","signature":"` + sig + `"}]}`, "privacygroup: spends must be a list of 0-64"},
			{devchain.PrivacyConfirm, `{"group":"g1","txId":"q","spends":[1],"endorsements":[{"member":"A","signature":"` + sig + `"}]}`, "privacygroup: a spent state's id must be a string of 1-128 bytes"},
			{devchain.PrivacyConfirm, `{"group":"g1","txId":"q","endorsements":[{"member":"A","signature":"abc"}]}`, "privacygroup: an endorsement's signature must be 128 characters of lowercase hex"},
			{devchain.PrivacyConfirm, `{"group":"g1","txId":"q","endorsements":[{"member":"A"}],"x":1}`, `privacygroup: confirm args has an unknown field "x"`},
			{"spend", `{}`, `privacygroup: unknown method "spend"`},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, dep.pg(c.method, c.args))
		}
		e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
			e.wantNoEvents(hs[i])
		}
	})

	t.Run("a reorg removing a confirm frees its states", func(t *testing.T) {
		h := other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g1", "reorged", []string{"m2"}, []devchain.PrivacyState{pgState("r1", 1)}, A, B, C))
		e.mine()
		ev := e.wantEvent(h, pg, "IntentConfirmed", pgConfirmedEvent("g1", "reorged", []string{"m2"}, []devchain.PrivacyState{pgState("r1", 1)}))
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(1))})
		e.wantSpent("g1", "m2", false, "")
		e.pgNoState("g1", "r1")
		if _, ok := e.pgIntent("g1", "reorged"); ok {
			t.Fatal("intent of a reorged block still confirmed")
		}
		for _, x := range e.events(0, 0) {
			if x.TxHash == h {
				t.Fatalf("an event of a reorged block is still listed: %+v", x)
			}
		}
		e.wantState(h, chain.TxPending)
		e.mine()
		e.wantIncluded(h, true, "")
		if again := e.wantEvent(h, pg, "IntentConfirmed", string(ev.Data)); again.Cursor <= ev.Cursor {
			t.Fatalf("event after the reorg at cursor %d, before %d", again.Cursor, ev.Cursor)
		}
		e.wantSpent("g1", "m2", true, "reorged")
	})

	t.Run("restart keeps the groups", func(t *testing.T) {
		read := func() string {
			in, _ := e.pgIntent("g1", "t1")
			return e.mustJSON([]any{e.pgStateOf("g1", "m1"), e.pgStateOf("g1", "k4"), e.pgStateOf("g2", "n1"), in})
		}
		before := read()
		e.restart()
		if got := read(); got != before {
			t.Fatalf("privacygroup after restart %s, want %s", got, before)
		}
		other.nonce = e.account(other.from).Nonce
		h := other.pg(devchain.PrivacyConfirm, pgConfirmArgs("g1", "t1", []string{"k4"}, nil, A, B, C))
		e.mine()
		e.wantIncluded(h, false, devchain.ReasonIntentConfirmed)
	})
}
