package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// intent is one item of an array body, written as JSON (raw, when set, is
// the item as it is).
type intent struct {
	queue, typ, data, key, raw string
}

func (it intent) json() string {
	if it.raw != "" {
		return it.raw
	}
	m := map[string]any{"queue": it.queue, "type": it.typ}
	if it.data != "" {
		m["data"] = json.RawMessage(it.data)
	}
	if it.key != "" {
		m["idempotencyKey"] = it.key
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func arrayBody(items ...intent) []byte {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = it.json()
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

// manyIntents makes n valid intents on queue, without keys.
func manyIntents(n int, queue string) []intent {
	out := make([]intent, n)
	for i := range out {
		out[i] = intent{queue: queue, typ: sequencer.SendClaimVote, data: fmt.Sprintf(`{"voter":"v%d"}`, i)}
	}
	return out
}

// item is what a test expects of one BatchResult: its status and error
// code, and (sameAs >= 0) that it names the record of the item at that
// index, in this answer or in the setup's (before).
type item struct {
	status int
	code   string
	sameAs int
}

func ok(status int) item           { return item{status: status, sameAs: -1} }
func refused(s int, c string) item { return item{status: s, code: c, sameAs: -1} }

func TestIntakeArray(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	vote := func(q, data, key string) intent {
		return intent{queue: q, typ: sequencer.SendClaimVote, data: data, key: key}
	}
	tests := []struct {
		name string
		// before is posted first (an array, answered 200).
		before []intent
		body   []byte
		// status and code of the whole answer; 200 means items are checked.
		status int
		code   string
		items  []item
		// created is how many records the request makes.
		created int
	}{
		{name: "one", body: arrayBody(vote("a1", `{"v":1}`, "")), status: 200, items: []item{ok(201)}, created: 1},
		{name: "mixed valid and invalid", body: arrayBody(
			vote("a2", `{"v":1}`, ""),
			intent{raw: `{"queue":"a2","type":"` + typ + `","fee":1}`},
			intent{raw: `{"type":"` + typ + `"}`},
			intent{raw: `{"queue":"a2","type":"NOPE"}`},
			vote("a2", `{"zkapp":1}`, ""),
			intent{raw: `7`},
			vote("a2\u0000", `{}`, ""),
			vote("a2", `{"v":2}`, ""),
		), status: 200, items: []item{ok(201), refused(400, api.CodeBadJSON), refused(422, api.CodeInvalid),
			refused(422, api.CodeTypeNotAllowed), refused(422, api.CodeInvalid), refused(400, api.CodeBadJSON),
			refused(422, api.CodeInvalid), ok(201)}, created: 2},
		{name: "every item invalid", body: arrayBody(vote("a3", `{"zkapp":1}`, ""), vote("a3", `{"zkapp":2}`, "")),
			status: 200, items: []item{refused(422, api.CodeInvalid), refused(422, api.CodeInvalid)}},
		{name: "a key twice, same intent", body: arrayBody(vote("a4", `{"b":1,"a":2}`, "k4"), vote("a4", `{"a":2, "b":1}`, "k4")),
			status: 200, items: []item{ok(201), {status: 200, sameAs: 0}}, created: 1},
		{name: "a key twice, another intent", body: arrayBody(vote("a5", `{"a":1}`, "k5"), vote("a5", `{"a":2}`, "k5"), vote("a5", `{}`, "")),
			status: 200, items: []item{ok(201), refused(409, api.CodeIdempotency), ok(201)}, created: 2},
		{name: "a key from an earlier request", before: []intent{vote("a6", `{"a":1}`, "k6")},
			body:   arrayBody(vote("a6", `{"a":1}`, "k6"), vote("a6", `{"a":2}`, "k6"), vote("a6", `{}`, "k6b")),
			status: 200, items: []item{{status: 200, sameAs: 0}, refused(409, api.CodeIdempotency), ok(201)}, created: 1},
		{name: "a conflict and an invalid item", before: []intent{vote("a7", `{"a":1}`, "k7")},
			body:   arrayBody(vote("a7", `{"a":2}`, "k7"), vote("a7", `{"zkapp":1}`, ""), vote("a7", `{}`, "")),
			status: 200, items: []item{refused(409, api.CodeIdempotency), refused(422, api.CodeInvalid), ok(201)}, created: 1},
		{name: "1000 intents", body: arrayBody(manyIntents(api.MaxBatch, "a8")...), status: 200, created: api.MaxBatch},
		{name: "1001 intents", body: arrayBody(manyIntents(api.MaxBatch+1, "a9")...), status: 413, code: api.CodeTooLarge},
		{name: "empty array", body: []byte(` [ ] `), status: 400, code: api.CodeBadJSON},
		{name: "a string", body: []byte(`"q"`), status: 400, code: api.CodeBadJSON},
		{name: "a number", body: []byte(`12`), status: 400, code: api.CodeBadJSON},
		{name: "true", body: []byte(`true`), status: 400, code: api.CodeBadJSON},
		{name: "unterminated array", body: []byte(`[{"queue":"q","type":"` + typ + `"}`), status: 400, code: api.CodeBadJSON},
		{name: "data after the array", body: []byte(`[{"queue":"q","type":"` + typ + `"}] []`), status: 400, code: api.CodeBadJSON},
		{name: "invalid utf-8", body: []byte("[{\"queue\":\"q\xff\",\"type\":\"" + typ + "\"}]"), status: 400, code: api.CodeBadJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prior []api.BatchResult
			if tt.before != nil {
				r := e.do(t, http.MethodPost, "/v1/transactions", arrayBody(tt.before...))
				if r.status != http.StatusOK {
					t.Fatalf("setup: %d %s", r.status, r.body)
				}
				prior = decode[[]api.BatchResult](t, r)
			}
			before := countRecords(t, e.store)
			r := e.do(t, http.MethodPost, "/v1/transactions", tt.body)
			if r.status != tt.status || r.errCode() != tt.code {
				t.Fatalf("got %d %.300s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
			if got := countRecords(t, e.store) - before; got != tt.created {
				t.Errorf("%d records created, want %d", got, tt.created)
			}
			if tt.status != http.StatusOK {
				return
			}
			res := decode[[]api.BatchResult](t, r)
			want := tt.items
			if want == nil { // every item created
				for range res {
					want = append(want, ok(201))
				}
				if len(want) == 0 {
					t.Fatal("no results")
				}
			}
			if len(res) != len(want) {
				t.Fatalf("%d results, want %d: %s", len(res), len(want), r.body)
			}
			uids := map[string]bool{}
			for i, w := range want {
				g := res[i]
				if g.Status != w.status || g.Created != (w.status == 201) {
					t.Errorf("item %d: status %d created %v, want %d: %+v", i, g.Status, g.Created, w.status, g.Error)
					continue
				}
				if w.code != "" {
					if g.Error == nil || g.Error.Code != w.code || g.Transaction != nil || g.Error.Message == "" {
						t.Errorf("item %d: %+v %+v, want error %s", i, g.Error, g.Transaction, w.code)
					}
					continue
				}
				if g.Transaction == nil || g.Error != nil {
					t.Errorf("item %d: %+v, want a transaction", i, g)
					continue
				}
				if w.status == 201 {
					if uids[g.Transaction.UID] {
						t.Errorf("item %d: uid %s twice", i, g.Transaction.UID)
					}
					uids[g.Transaction.UID] = true
				}
				if w.sameAs >= 0 {
					other := res
					if prior != nil {
						other = prior
					}
					if g.Transaction.UID != other[w.sameAs].Transaction.UID {
						t.Errorf("item %d: uid %s, want that of item %d, %s", i, g.Transaction.UID, w.sameAs, other[w.sameAs].Transaction.UID)
					}
				}
			}
		})
	}
}

// The array form has its own body limit (Options.MaxBatchBody); one intent
// keeps Options.MaxBody.
func TestIntakeArrayBodyLimits(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true, MaxBody: 4 << 10, MaxBatchBody: 64 << 10})
	big := func(n int) string { return `{"s":"` + strings.Repeat("x", n) + `"}` }
	tests := []struct {
		name   string
		body   []byte
		status int
		msg    string
	}{
		{"one intent over MaxBody", []byte(intent{queue: "q", typ: typ, data: big(5 << 10)}.json()), 413, "limit of 4096 bytes"},
		{"one intent over MaxBatchBody", []byte(intent{queue: "q", typ: typ, data: big(100 << 10)}.json()), 413, "limit of 4096 bytes"},
		{"an array over MaxBody", arrayBody(intent{queue: "q", typ: typ, data: big(5 << 10)}, intent{queue: "q", typ: typ, data: big(5 << 10)}), 200, ""},
		{"an array over MaxBatchBody", arrayBody(intent{queue: "q", typ: typ, data: big(100 << 10)}), 413, "limit of 65536 bytes for an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRecords(t, e.store)
			r := e.do(t, http.MethodPost, "/v1/transactions", tt.body)
			if r.status != tt.status || !strings.Contains(r.errMessage(), tt.msg) {
				t.Fatalf("got %d %.200s, want %d %q", r.status, r.body, tt.status, tt.msg)
			}
			if r.status != http.StatusOK && countRecords(t, e.store) != before {
				t.Fatal("a refused request stored records")
			}
		})
	}
}

// A type the principal may not submit is refused for its item alone.
func TestIntakeArrayTypeRoles(t *testing.T) {
	e, _ := accessEnv(t, envOptions{TypeRoles: map[string][]auth.Role{sequencer.SendClaimVote: {"ops"}, api.CallType: {}}})
	body := arrayBody(intent{queue: "r", typ: typ}, intent{queue: "r", typ: sequencer.SendClaimVote}, intent{queue: "r", typ: api.CallType, data: `{}`})
	post := func(token string) []api.BatchResult {
		r := e.serveWith("POST", "/v1/transactions", body, http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}})
		if r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		return decode[[]api.BatchResult](t, r)
	}
	res := post(tokSubmitter)
	if res[0].Status != 201 || res[1].Status != 403 || res[1].Error.Code != api.CodeTypeForbidden || !strings.Contains(res[1].Error.Message, "ops") ||
		res[2].Status != 403 || res[2].Error.Code != api.CodeTypeForbidden {
		t.Fatalf("submitter: %+v", res)
	}
	if res := post(tokAdmin); res[0].Status != 201 || res[1].Status != 201 || res[2].Status == 201 {
		t.Fatalf("admin: %+v", res)
	}
}

// recorder is an api.Intake that records the size of each Submit. With
// oneByOne it takes intents one at a time and stops at the first it
// refuses, as the replicated intake does; it refuses every intent of the
// queue "down" as unavailable.
type recorder struct {
	next     api.Intake
	oneByOne bool
	mu       sync.Mutex
	sizes    []int
	down     int // intents of "down" handed to it
}

func (c *recorder) Submit(ctx context.Context, p string, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	c.mu.Lock()
	c.sizes = append(c.sizes, len(in))
	c.mu.Unlock()
	if !c.oneByOne {
		return c.next.Submit(ctx, p, in)
	}
	var out []store.EnqueueResult
	for _, it := range in {
		if it.Queue == "down" {
			c.mu.Lock()
			c.down++
			c.mu.Unlock()
			return out, httpjson.Errorf(api.CodeUnavailable, "down is unavailable")
		}
		r, err := c.next.Submit(ctx, p, []sequencer.Intake{it})
		if err != nil {
			return out, err
		}
		out = append(out, r...)
	}
	return out, nil
}

func (c *recorder) take() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sizes
	c.sizes = nil
	return s
}

// The valid intents of an array go in one Submit; with refused ones among
// them, the valid ones are still all committed, the refused found by
// halves; an intake that stops at its first refusal has the intents after
// it submitted again, never the refused one.
func TestIntakeArraySubmits(t *testing.T) {
	for _, oneByOne := range []bool{false, true} {
		t.Run(fmt.Sprintf("oneByOne=%v", oneByOne), func(t *testing.T) {
			rec := &recorder{oneByOne: oneByOne}
			e := newEnv(t, envOptions{NoRun: true, WrapIntake: func(next api.Intake) api.Intake { rec.next = next; return rec }})
			r := e.do(t, http.MethodPost, "/v1/transactions", arrayBody(manyIntents(100, "s1")...))
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if got := rec.take(); len(got) != 1 || got[0] != 100 {
				t.Fatalf("Submits of %v intents, want one of 100", got)
			}
			items := manyIntents(16, "s2")
			items[5].data = `{"zkapp":1}` // refused by the sequencer's schema
			items[11].queue = "down"
			items[12].queue = "down"
			r = e.do(t, http.MethodPost, "/v1/transactions", arrayBody(items...))
			res := decode[[]api.BatchResult](t, r)
			for i, g := range res {
				want := 201
				switch {
				case i == 5:
					want = 422
				case (i == 11 || i == 12) && oneByOne:
					want = 503
				}
				if g.Status != want {
					t.Errorf("item %d: %d %+v, want %d", i, g.Status, g.Error, want)
				}
			}
			if got := rec.take(); got[0] != 16 || len(got) > 12 {
				t.Errorf("Submits of %v intents", got)
			}
			if oneByOne && rec.down != 2 {
				t.Errorf("the intents of down were handed %d times, want 2", rec.down)
			}
		})
	}
}
