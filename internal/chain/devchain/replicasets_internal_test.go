package devchain

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// rsWorld is a state with four registered nodes and their keys.
type rsWorld struct {
	state map[string][]byte
	keys  map[string]ed25519.PrivateKey
	ids   []string
}

func newRSWorld(t testing.TB) *rsWorld {
	w := &rsWorld{state: map[string][]byte{}, keys: map[string]ed25519.PrivateKey{}}
	for i := range 4 {
		k := chain.KeyFromSeed(fmt.Sprintf("replicasets/node%d", i))
		id := NodeIDOf(k.Public().(ed25519.PublicKey))
		b, _ := json.Marshal(SignNodeRegistration(k, id, fmt.Sprintf("%064x", i), fmt.Sprintf("node%d:7000", i), 1))
		x := &Exec{Height: 1, contract: NodesContract, state: w.state}
		if err := (Nodes{}).Apply(x, NodesRegister, b); err != nil {
			t.Fatal(err)
		}
		for k, v := range x.writes.vals {
			w.state[k] = v
		}
		w.keys[id], w.ids = k, append(w.ids, id)
	}
	return w
}

// apply runs an update at height h; it keeps the writes when it succeeds
// and returns the failure reason ("" on success) and the events.
func (w *rsWorld) apply(t testing.TB, h uint64, args []byte) (string, []pendingEvent) {
	x := &Exec{Height: h, contract: ReplicaSetsContract, state: w.state}
	err := (ReplicaSets{}).Apply(x, ReplicaSetsUpdate, args)
	if err != nil {
		var fl *Failure
		if !errors.As(err, &fl) {
			t.Fatalf("update %s: %v is not a *Failure", args, err)
		}
		return fl.Reason, nil
	}
	for k, v := range x.writes.vals {
		w.state[k] = v
	}
	return "", x.events
}

func (w *rsWorld) update(signer, queue, primary string, secondaries []string, replaces uint64) []byte {
	b, _ := json.Marshal(SignReplicaSetUpdate(w.keys[signer], signer, queue, primary, secondaries, replaces))
	return b
}

func (w *rsWorld) read(t *testing.T, method, args string) (json.RawMessage, error) {
	return (ReplicaSets{}).Call(contractReader{contract: ReplicaSetsContract, state: w.state}, method, json.RawMessage(args))
}

// TestReplicaSets: a queue's set is created by its primary, replaced by a
// member naming the version it replaces (a race's loser and a replay are
// stale), never by a stranger, a forged signature or with an unknown node.
func TestReplicaSets(t *testing.T) {
	w := newRSWorld(t)
	a, b, c, d := w.ids[0], w.ids[1], w.ids[2], w.ids[3]
	stranger := chain.KeyFromSeed("replicasets/stranger")
	sid := NodeIDOf(stranger.Public().(ed25519.PublicKey))
	w.keys[sid] = stranger
	forged, _ := json.Marshal(func() ReplicaSetUpdate {
		u := SignReplicaSetUpdate(w.keys[a], a, "q", b, []string{c}, 1)
		u.Signer = b // a's signature presented as b's
		return u
	}())
	replaceA := w.update(b, "q", b, []string{c, d}, 1)
	for i, tt := range []struct {
		name, reason string
		args         []byte
	}{
		{"created by a stranger to it", ReasonNotAMember, w.update(b, "q", a, []string{b, c}, 0)},
		{"created by its primary", "", w.update(a, "q", a, []string{b, c}, 0)},
		{"created again", ReasonStaleReplicaSet, w.update(a, "q", a, []string{b, c}, 0)},
		{"replaced by a non-member", ReasonNotAMember, w.update(d, "q", d, []string{b, c}, 1)},
		{"a forged signature", ReasonBadSignature, forged},
		{"naming an unregistered node", ReasonUnknownNode, w.update(b, "q", b, []string{c, sid}, 1)},
		{"signed by an unregistered node", ReasonUnknownNode, w.update(sid, "q", sid, nil, 1)},
		{"a secondary replaces the primary", "", replaceA},
		{"the same update again (a replay)", ReasonStaleReplicaSet, replaceA},
		{"the race's loser", ReasonStaleReplicaSet, w.update(c, "q", c, []string{b, d}, 1)},
		{"a second queue", "", w.update(d, "p", d, nil, 0)},
	} {
		reason, evs := w.apply(t, uint64(10+i), tt.args)
		if reason != tt.reason {
			t.Errorf("%s: reason %q, want %q", tt.name, reason, tt.reason)
		}
		if reason == "" && (len(evs) != 1 || evs[0].name != "ReplicaSetUpdated") {
			t.Errorf("%s: events %v", tt.name, evs)
		}
	}
	raw, err := w.read(t, "set", `{"queue":"q"}`)
	var s ReplicaSet
	if err != nil || json.Unmarshal(raw, &s) != nil || s.Version != 2 || s.Primary != b || fmt.Sprint(s.Secondaries) != fmt.Sprint([]string{c, d}) || s.UpdatedBy != b {
		t.Fatalf("set q: %s, %v", raw, err)
	}
	if _, err := w.read(t, "set", `{"queue":"none"}`); !errors.Is(err, chain.ErrNotFound) {
		t.Fatalf("set of a queue with none: %v", err)
	}
	raw, err = w.read(t, "sets", `{"limit":1}`)
	var page ReplicaSetsPage
	if err != nil || json.Unmarshal(raw, &page) != nil || len(page.Sets) != 1 || page.Sets[0].Queue != "p" || page.Next != "p" {
		t.Fatalf("sets limit 1: %s, %v", raw, err)
	}
	raw, err = w.read(t, "sets", `{"after":"p"}`)
	if err != nil || json.Unmarshal(raw, &page) != nil || len(page.Sets) != 1 || page.Sets[0].Queue != "q" || page.Next != "" {
		t.Fatalf("sets after p: %s, %v", raw, err)
	}
}

// FuzzReplicaSetsArgs applies arbitrary args to update and both reads:
// nothing panics, a failure is a *Failure with a stable reason, the same
// args on the same state give the same outcome, and a success moved the
// version on by one under a member's valid signature.
func FuzzReplicaSetsArgs(f *testing.F) {
	w := newRSWorld(f)
	a, b, c := w.ids[0], w.ids[1], w.ids[2]
	w.apply(f, 2, w.update(a, "q", a, []string{b}, 0))
	for _, s := range []string{string(w.update(b, "q", b, []string{c}, 1)), string(w.update(a, "r", a, nil, 0)), ``, `null`, `{}`,
		`{"queue":""}`, `{"queue":"q","limit":5}`, `{"after":"a","limit":-1}`, `{"queue":"\u0000"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		run := func() (string, map[string][]byte) {
			x := &Exec{Height: 3, contract: ReplicaSetsContract, state: w.state}
			err := (ReplicaSets{}).Apply(x, ReplicaSetsUpdate, json.RawMessage(args))
			if err == nil {
				return "", x.writes.vals
			}
			var fl *Failure
			if !errors.As(err, &fl) {
				t.Fatalf("update %q: %v is not a *Failure", args, err)
			}
			return fl.Reason, nil
		}
		r1, w1 := run()
		r2, w2 := run()
		if r1 != r2 || fmt.Sprint(w1) != fmt.Sprint(w2) {
			t.Fatalf("update %q: two runs differ", args)
		}
		if r1 == "" {
			var u ReplicaSetUpdate
			if err := json.Unmarshal([]byte(args), &u); err != nil {
				t.Fatalf("update %q succeeded on args that do not decode", args)
			}
			cur, found, _ := replicaSetLoad(contractReader{contract: ReplicaSetsContract, state: w.state}, u.Queue)
			if u.Replaces != cur.Version || (found && u.Signer != a && u.Signer != b) {
				t.Fatalf("update %q succeeded against %+v", args, cur)
			}
		}
		for _, m := range []string{"set", "sets"} {
			raw, err := (ReplicaSets{}).Call(contractReader{contract: ReplicaSetsContract, state: w.state}, m, json.RawMessage(args))
			var fl *Failure
			switch {
			case err == nil && !json.Valid(raw):
				t.Fatalf("read %s %q answered %q", m, args, raw)
			case err != nil && !errors.Is(err, chain.ErrNotFound) && !errors.As(err, &fl):
				t.Fatalf("read %s %q: %v", m, args, err)
			}
		}
	})
}
