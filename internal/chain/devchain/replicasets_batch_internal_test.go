package devchain

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// applyMany runs update_many at height h on w's state; it keeps the writes
// when it succeeds and returns the failure reason ("" on success) and the
// events.
func (w *rsWorld) applyMany(t testing.TB, h uint64, args []byte) (string, []pendingEvent) {
	x := &Exec{Height: h, contract: ReplicaSetsContract, state: w.state}
	if err := (ReplicaSets{}).Apply(x, ReplicaSetsUpdateMany, args); err != nil {
		var fl *Failure
		if !errors.As(err, &fl) {
			t.Fatalf("update_many %s: %v is not a *Failure", args, err)
		}
		if len(x.writes.order) != 0 || len(x.events) != 0 {
			t.Fatalf("update_many %s failed (%s) but wrote %q and emitted %d events", args, fl.Reason, x.writes.order, len(x.events))
		}
		return fl.Reason, nil
	}
	for k, v := range x.writes.vals {
		w.state[k] = v
	}
	return "", x.events
}

// clone returns a world on a copy of w's state.
func (w *rsWorld) clone() *rsWorld {
	return &rsWorld{state: maps.Clone(w.state), keys: w.keys, ids: w.ids}
}

// batch joins items into update_many args as they are (not canonical).
func batch(items ...[]byte) []byte {
	return []byte(`{"updates":[` + string(bytes.Join(items, []byte(","))) + `]}`)
}

// rsOneByOne applies each item of a batch as its own update on w, in
// order: the oracle of update_many. It returns each item's reason and its
// event (nil when refused).
func rsOneByOne(t testing.TB, w *rsWorld, h uint64, items []json.RawMessage) ([]string, []*pendingEvent) {
	reasons, evs := make([]string, len(items)), make([]*pendingEvent, len(items))
	for i, it := range items {
		r, e := w.apply(t, h, it)
		reasons[i] = r
		if r == "" {
			if len(e) != 1 {
				t.Fatalf("update %s: %d events", it, len(e))
			}
			evs[i] = &e[0]
		}
	}
	return reasons, evs
}

// checkBatchAgainstOneByOne checks that events, the outcome of update_many
// of items on before, match rsOneByOne's on a copy of before, and that both
// leave the same state (after: before with the batch's writes).
func checkBatchAgainstOneByOne(t testing.TB, before, after *rsWorld, h uint64, items []json.RawMessage, events []pendingEvent) {
	one := before.clone()
	reasons, evs := rsOneByOne(t, one, h, items)
	if len(events) != len(items) {
		t.Fatalf("%d events for %d updates", len(events), len(items))
	}
	for i, e := range events {
		switch {
		case reasons[i] == "" && (e.name != EventReplicaSetUpdated || e.contract != ReplicaSetsContract || !bytes.Equal(e.data, evs[i].data)):
			t.Errorf("update %d: event %s %s, alone it emits %s %s", i, e.name, e.data, evs[i].name, evs[i].data)
		case reasons[i] != "":
			var r ReplicaSetRefused
			if e.name != EventReplicaSetRefused || json.Unmarshal(e.data, &r) != nil || r.Reason != reasons[i] {
				t.Errorf("update %d: event %s %s, alone it fails %q", i, e.name, e.data, reasons[i])
			}
		}
	}
	if !maps.EqualFunc(after.state, one.state, bytes.Equal) {
		t.Errorf("the batch's state differs from its updates applied one by one")
	}
}

// TestReplicaSetsUpdateMany: one batch mixes applied and refused updates
// (every reason update gives, malformed updates included); each has its
// event, in order; an update of a queue the batch already changed names
// the version the first wrote; a refused update does not stop those after
// it; and the batch leaves what its updates applied one by one leave.
func TestReplicaSetsUpdateMany(t *testing.T) {
	t.Parallel()
	w := newRSWorld(t)
	a, b, c, d := w.ids[0], w.ids[1], w.ids[2], w.ids[3]
	stranger := chain.KeyFromSeed("replicasets/stranger")
	sid := NodeIDOf(stranger.Public().(ed25519.PublicKey))
	w.keys[sid] = stranger
	for _, u := range [][]byte{w.update(a, "q", a, []string{b, c}, 0), w.update(d, "p", d, nil, 0)} {
		if r, _ := w.apply(t, 2, u); r != "" {
			t.Fatalf("setup: %s", r)
		}
	}
	before := w.clone()
	forged, _ := json.Marshal(func() ReplicaSetUpdate {
		u := SignReplicaSetUpdate(w.keys[a], a, "p", d, nil, 1)
		u.Signer = d // a's signature presented as d's
		return u
	}())
	withField := func(u []byte, field, val string) []byte {
		return append(u[:len(u)-1], []byte(`,"`+field+`":`+val+`}`)...)
	}
	badQueue, _ := json.Marshal(SignReplicaSetUpdate(w.keys[a], a, "bad\u0001", a, nil, 0))
	badSig, _ := json.Marshal(func() ReplicaSetUpdate {
		u := SignReplicaSetUpdate(w.keys[d], d, "p", d, []string{a}, 1)
		u.Signature = "zz"
		return u
	}())
	tests := []struct {
		name, reason string
		args         []byte
		// applied: the version written; refused: the event's fields.
		version       uint64
		queue, signer string
		replaces      uint64
	}{
		{name: "a secondary replaces the primary", args: w.update(b, "q", b, []string{c, d}, 1), version: 2},
		{name: "the same queue again, replacing the first's version", args: w.update(c, "q", c, []string{b, d}, 2), version: 3},
		{name: "the same queue, naming the version the first replaced", reason: ReasonStaleReplicaSet, args: w.update(d, "q", d, []string{b}, 1), queue: "q", signer: d, replaces: 1},
		{name: "a new queue by its primary", args: w.update(a, "r", a, nil, 0), version: 1},
		{name: "a new queue by a stranger to it", reason: ReasonNotAMember, args: w.update(b, "s", a, nil, 0), queue: "s", signer: b},
		{name: "replaced by a non-member", reason: ReasonNotAMember, args: w.update(a, "p", a, []string{d}, 1), queue: "p", signer: a, replaces: 1},
		{name: "a forged signature", reason: ReasonBadSignature, args: forged, queue: "p", signer: d, replaces: 1},
		{name: "naming an unregistered node", reason: ReasonUnknownNode, args: w.update(d, "p", d, []string{sid}, 1), queue: "p", signer: d, replaces: 1},
		{name: "signed by an unregistered node", reason: ReasonUnknownNode, args: w.update(sid, "p", sid, nil, 1), queue: "p", signer: sid, replaces: 1},
		{name: "a bad queue name", reason: "replicasets: queue must be 1 to 128 bytes of UTF-8 without control characters", args: badQueue, signer: a},
		{name: "a signature not in hex", reason: "nodes: signature must be 128 characters of lowercase hex", args: badSig, queue: "p", signer: d, replaces: 1},
		{name: "an unknown field", reason: `replicasets: update args has an unknown field "extra"`, args: withField(w.update(d, "p", d, []string{a}, 1), "extra", "1"), queue: "p", signer: d, replaces: 1},
		{name: "not an object", reason: "replicasets: update args must be a JSON object", args: []byte(`7`)},
		{name: "a replay of the batch's first", reason: ReasonStaleReplicaSet, args: w.update(b, "q", b, []string{c, d}, 1), queue: "q", signer: b, replaces: 1},
		{name: "after refusals, its member replaces p", args: w.update(d, "p", d, []string{a}, 1), version: 2},
	}
	items := make([][]byte, len(tests))
	for i, tt := range tests {
		items[i] = tt.args
	}
	reason, events := w.applyMany(t, 7, batch(items...))
	if reason != "" {
		t.Fatalf("update_many failed: %s", reason)
	}
	if len(events) != len(tests) {
		t.Fatalf("%d events for %d updates", len(events), len(tests))
	}
	for i, tt := range tests {
		e := events[i]
		if tt.reason == "" {
			var u ReplicaSetUpdated
			var want ReplicaSetUpdate
			_ = json.Unmarshal(tt.args, &want)
			if e.name != EventReplicaSetUpdated || json.Unmarshal(e.data, &u) != nil || u.Queue != want.Queue || u.Primary != want.Primary ||
				fmt.Sprint(u.Secondaries) != fmt.Sprint(want.Secondaries) || u.Version != tt.version || u.UpdatedBy != want.Signer {
				t.Errorf("%s: event %s %s, want %s at version %d", tt.name, e.name, e.data, EventReplicaSetUpdated, tt.version)
			}
			continue
		}
		want := ReplicaSetRefused{Queue: tt.queue, Replaces: tt.replaces, Signer: tt.signer, Reason: tt.reason}
		var r ReplicaSetRefused
		if e.name != EventReplicaSetRefused || json.Unmarshal(e.data, &r) != nil || r != want {
			t.Errorf("%s: event %s %s, want %s %+v", tt.name, e.name, e.data, EventReplicaSetRefused, want)
		}
	}
	for q, want := range map[string]ReplicaSet{
		"q": {Queue: "q", Primary: c, Secondaries: []string{b, d}, Version: 3, UpdatedBy: c, Height: 7},
		"p": {Queue: "p", Primary: d, Secondaries: []string{a}, Version: 2, UpdatedBy: d, Height: 7},
		"r": {Queue: "r", Primary: a, Secondaries: []string{}, Version: 1, UpdatedBy: a, Height: 7},
	} {
		raw, err := w.read(t, "set", fmt.Sprintf(`{"queue":%q}`, q))
		var s ReplicaSet
		if err != nil || json.Unmarshal(raw, &s) != nil || fmt.Sprint(s) != fmt.Sprint(want) {
			t.Errorf("set %s: %s, %v; want %+v", q, raw, err, want)
		}
	}
	if raw, err := w.read(t, "sets", `{}`); err != nil || !strings.Contains(string(raw), `"queue":"r"`) || strings.Contains(string(raw), `"queue":"s"`) {
		t.Errorf("sets: %s, %v: want r indexed, s not", raw, err)
	}
	raws := make([]json.RawMessage, len(items))
	for i, it := range items {
		raws[i] = it
	}
	checkBatchAgainstOneByOne(t, before, w, 7, raws, events)
}

// TestReplicaSetsUpdateManyMalformed: args that are not a batch of 1 to
// MaxReplicaSetBatch updates fail the whole transaction, with no write and
// no event, however valid the updates inside.
func TestReplicaSetsUpdateManyMalformed(t *testing.T) {
	t.Parallel()
	w := newRSWorld(t)
	a := w.ids[0]
	ok := w.update(a, "q", a, nil, 0)
	over := make([][]byte, MaxReplicaSetBatch+1)
	for i := range over {
		over[i] = w.update(a, fmt.Sprintf("q%d", i), a, nil, 0)
	}
	for _, tt := range []struct {
		name, args, reason string
	}{
		{"no args", ``, "replicasets: update_many args must be a JSON object"},
		{"null", `null`, "replicasets: update_many args must be a JSON object"},
		{"a list", `[` + string(ok) + `]`, "replicasets: update_many args must be a JSON object"},
		{"not JSON", `{"updates":[`, "replicasets: update_many args must be a JSON object"},
		{"no updates", `{}`, replicaSetBatchShape},
		{"null updates", `{"updates":null}`, replicaSetBatchShape},
		{"updates an object", `{"updates":` + string(ok) + `}`, replicaSetBatchShape},
		{"updates a string", `{"updates":"x"}`, replicaSetBatchShape},
		{"an unknown key", `{"updates":[` + string(ok) + `],"x":1}`, `replicasets: update_many args has an unknown field "x"`},
		{"update, not updates", `{"update":[` + string(ok) + `]}`, `replicasets: update_many args has an unknown field "update"`},
		{"an empty list", `{"updates":[]}`, "replicasets: update_many takes 1 to 71 updates, got 0"},
		{"one too many", string(batch(over...)), "replicasets: update_many takes 1 to 71 updates, got 72"},
	} {
		if reason, _ := w.applyMany(t, 3, []byte(tt.args)); reason != tt.reason {
			t.Errorf("%s: reason %q, want %q", tt.name, reason, tt.reason)
		}
	}
	x := &Exec{Height: 3, contract: ReplicaSetsContract, state: w.state}
	if err := (ReplicaSets{}).Apply(x, "updateMany", batch(ok)); err == nil || err.Error() != `replicasets: unknown method "updateMany"` {
		t.Errorf("updateMany: %v", err)
	}
}

// worstQueue is the i-th (i < 128) of the queue names longest in JSON:
// 128 bytes, each a quote or a backslash (i in binary in the last 7).
func worstQueue(i int) string {
	q := []byte(strings.Repeat(`"`, MaxReplicaSetQueue))
	for bit := range 7 {
		if i>>bit&1 == 1 {
			q[MaxReplicaSetQueue-1-bit] = '\\'
		}
	}
	return string(q)
}

// worstUpdate is the longest update the contract takes, in canonical JSON:
// a queue name longest in JSON, 8 secondaries, the largest replaces.
func worstUpdate(i int) ReplicaSetUpdate {
	q := worstQueue(i)
	secs := make([]string, MaxSecondaries)
	for j := range secs {
		secs[j] = fmt.Sprintf("n%040x", j+1)
	}
	return SignReplicaSetUpdate(chain.KeyFromSeed("replicasets/worst"), fmt.Sprintf("n%040x", 0), q, fmt.Sprintf("n%040x", 99), secs, math.MaxUint64)
}

// TestReplicaSetBatchArgs: the args are canonical and decode back; 1 to
// MaxReplicaSetBatch updates are taken; MaxReplicaSetBatch is the most of
// the longest updates whose args fit chain.MaxArgs.
func TestReplicaSetBatchArgs(t *testing.T) {
	t.Parallel()
	worst := func(n int) []ReplicaSetUpdate {
		us := make([]ReplicaSetUpdate, n)
		for i := range us {
			us[i] = worstUpdate(i)
		}
		return us
	}
	one, _ := json.Marshal(worstUpdate(0))
	if n := len(chain.CanonicalArgs(one)); n != replicaSetUpdateMaxJSON {
		t.Fatalf("the longest update is %d bytes, replicaSetUpdateMaxJSON says %d", n, replicaSetUpdateMaxJSON)
	}
	if MaxReplicaSetBatch != 71 { // the figure the doc comments and docs give
		t.Fatalf("MaxReplicaSetBatch is %d: update the docs that say 71", MaxReplicaSetBatch)
	}
	args, err := ReplicaSetBatchArgs(worst(MaxReplicaSetBatch))
	if err != nil || len(args) > chain.MaxArgs || !bytes.Equal(args, chain.CanonicalArgs(args)) {
		t.Fatalf("%d of the longest updates: %d bytes, %v; want canonical args within %d", MaxReplicaSetBatch, len(args), err, chain.MaxArgs)
	}
	var back ReplicaSetBatch
	if err := json.Unmarshal(args, &back); err != nil || fmt.Sprint(back.Updates) != fmt.Sprint(worst(MaxReplicaSetBatch)) {
		t.Fatalf("args do not decode back: %v", err)
	}
	more, _ := json.Marshal(ReplicaSetBatch{Updates: worst(MaxReplicaSetBatch + 1)})
	if n := len(chain.CanonicalArgs(more)); n <= chain.MaxArgs {
		t.Fatalf("%d of the longest updates fit too (%d bytes)", MaxReplicaSetBatch+1, n)
	}
	// The doc's other figure: 3-member sets of 11-byte queue names.
	k := chain.KeyFromSeed("replicasets/typical")
	typical := func(n int) []ReplicaSetUpdate {
		us := make([]ReplicaSetUpdate, n)
		for i := range us {
			us[i] = SignReplicaSetUpdate(k, fmt.Sprintf("n%040x", 1), fmt.Sprintf("bench-%05d", i), fmt.Sprintf("n%040x", 1), []string{fmt.Sprintf("n%040x", 2), fmt.Sprintf("n%040x", 3)}, 100)
		}
		return us
	}
	fit, _ := json.Marshal(ReplicaSetBatch{Updates: typical(166)})
	over, _ := json.Marshal(ReplicaSetBatch{Updates: typical(167)})
	if len(chain.CanonicalArgs(fit)) > chain.MaxArgs || len(chain.CanonicalArgs(over)) <= chain.MaxArgs {
		t.Fatalf("166 typical updates are %d bytes, 167 are %d: the doc's 166 is wrong", len(fit), len(over))
	}
	for _, n := range []int{0, MaxReplicaSetBatch + 1} {
		if _, err := ReplicaSetBatchArgs(worst(n)); !errors.Is(err, chain.ErrInvalidTx) {
			t.Errorf("%d updates: %v, want chain.ErrInvalidTx", n, err)
		}
	}
	long := worstUpdate(0)
	long.Secondaries = slices.Repeat(long.Secondaries, 25) // refused by the contract, and too long
	if _, err := ReplicaSetBatchArgs(append(worst(MaxReplicaSetBatch-1), long)); !errors.Is(err, chain.ErrInvalidTx) {
		t.Errorf("args over chain.MaxArgs: %v, want chain.ErrInvalidTx", err)
	}
}

// TestReplicaSetsUpdateManyOnChain: a batch of MaxReplicaSetBatch updates
// as long as the contract takes goes through SendTx, is included as one
// successful transaction whose events say each update's outcome in order,
// and a restart replays it to the same blocks, events and state.
func TestReplicaSetsUpdateManyOnChain(t *testing.T) {
	tc := newTestChain(t)
	keys := make([]ed25519.PrivateKey, 1+MaxSecondaries)
	ids := make([]string, len(keys))
	for i := range keys {
		keys[i] = chain.KeyFromSeed(fmt.Sprintf("replicasets/chain%d", i))
		ids[i] = NodeIDOf(keys[i].Public().(ed25519.PublicKey))
		reg, _ := json.Marshal(SignNodeRegistration(keys[i], ids[i], fmt.Sprintf("%064x", i), fmt.Sprintf("node%d:7000", i), 1))
		tc.send(NodesContract, NodesRegister, string(reg))
	}
	tc.mine()
	us := make([]ReplicaSetUpdate, MaxReplicaSetBatch)
	for i := range us {
		q := worstQueue(i / 2)
		if i%2 == 0 { // a new queue
			us[i] = SignReplicaSetUpdate(keys[0], ids[0], q, ids[0], ids[1:], 0)
		} else { // a stale one: refused, as long as an update gets
			us[i] = SignReplicaSetUpdate(keys[0], ids[0], q, ids[0], ids[1:], math.MaxUint64)
		}
	}
	args, err := ReplicaSetBatchArgs(us)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) < chain.MaxArgs-2*replicaSetUpdateMaxJSON {
		t.Fatalf("args of %d bytes: not near chain.MaxArgs (%d)", len(args), chain.MaxArgs)
	}
	h := tc.send(ReplicaSetsContract, ReplicaSetsUpdateMany, string(args))
	tc.mine()
	if st := tc.status(h); !st.Success {
		t.Fatalf("update_many: %+v", st)
	}
	evs, err := tc.c.Events(tc.ctx, 0, MaxEventsPerRequest)
	if err != nil {
		t.Fatal(err)
	}
	var got []chain.Event
	for _, e := range evs {
		if e.TxHash == h {
			got = append(got, e)
		}
	}
	if len(got) != len(us) {
		t.Fatalf("%d events for %d updates", len(got), len(us))
	}
	for i, e := range got {
		var r struct {
			Queue  string `json:"queue"`
			Reason string `json:"reason"`
		}
		want, reason := EventReplicaSetUpdated, ""
		if i%2 == 1 {
			want, reason = EventReplicaSetRefused, ReasonStaleReplicaSet
		}
		if e.Name != want || e.Contract != ReplicaSetsContract || json.Unmarshal(e.Data, &r) != nil || r.Queue != us[i].Queue || r.Reason != reason {
			t.Fatalf("event %d: %s %s, want %s for %q", i, e.Name, e.Data, want, us[i].Queue)
		}
	}
	before := tc.dump()
	tc.restart()
	if after := tc.dump(); after != before {
		t.Fatal("the replayed chain differs")
	}
}

// FuzzReplicaSetsBatchArgs applies arbitrary args to update_many: nothing
// panics, a failure is a *Failure that wrote nothing, the same args on the
// same state give the same outcome, and a success's events and state are
// those of its updates applied one by one with update.
func FuzzReplicaSetsBatchArgs(f *testing.F) {
	w := newRSWorld(f)
	a, b, c := w.ids[0], w.ids[1], w.ids[2]
	w.apply(f, 2, w.update(a, "q", a, []string{b}, 0))
	for _, s := range [][]byte{
		batch(w.update(b, "q", b, []string{c}, 1), w.update(c, "q", c, []string{a}, 2), w.update(a, "r", a, nil, 0)),
		batch(w.update(b, "q", b, []string{c}, 1), w.update(a, "q", a, []string{c}, 1)),
		batch(w.update(c, "q", c, nil, 1), []byte(`{}`), []byte(`null`), []byte(`{"queue":"q","replaces":1,"signer":"x"}`)),
		batch(w.update(a, "r", a, nil, 0), w.update(a, "r", a, nil, 0)),
		[]byte(``), []byte(`null`), []byte(`{}`), []byte(`{"updates":[]}`), []byte(`{"updates":[1,"a",[]]}`), []byte(`{"updates":{}}`),
	} {
		f.Add(string(s))
	}
	f.Fuzz(func(t *testing.T, args string) {
		run := func() (string, *Exec) {
			x := &Exec{Height: 3, contract: ReplicaSetsContract, state: w.state}
			err := (ReplicaSets{}).Apply(x, ReplicaSetsUpdateMany, json.RawMessage(args))
			if err == nil {
				return "", x
			}
			var fl *Failure
			if !errors.As(err, &fl) {
				t.Fatalf("update_many %q: %v is not a *Failure", args, err)
			}
			return fl.Reason, x
		}
		r1, x1 := run()
		r2, x2 := run()
		if r1 != r2 || fmt.Sprint(x1.writes, x1.events) != fmt.Sprint(x2.writes, x2.events) {
			t.Fatalf("update_many %q: two runs differ", args)
		}
		if r1 != "" {
			if len(x1.writes.order) != 0 || len(x1.events) != 0 {
				t.Fatalf("update_many %q failed (%s) but wrote %q and emitted %d events", args, r1, x1.writes.order, len(x1.events))
			}
			return
		}
		var top struct {
			Updates []json.RawMessage `json:"updates"`
		}
		if err := json.Unmarshal([]byte(args), &top); err != nil || len(top.Updates) < 1 || len(top.Updates) > MaxReplicaSetBatch {
			t.Fatalf("update_many %q succeeded on args that are not a batch", args)
		}
		after := w.clone()
		for k, v := range x1.writes.vals {
			after.state[k] = v
		}
		checkBatchAgainstOneByOne(t, w, after, 3, top.Updates, x1.events)
	})
}
