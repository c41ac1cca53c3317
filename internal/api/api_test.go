package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

const typ = sequencer.CreateClaimVotingAccount

func TestIntakeRejects(t *testing.T) {
	e := newEnv(t, envOptions{})
	big := `{"queue":"q","type":"` + typ + `","data":"` + strings.Repeat("x", api.DefaultMaxBody) + `"}`
	tests := []struct {
		name   string
		body   string
		status int
		code   string
		// msg, when set, must appear in the error message.
		msg []string
	}{
		{"type not allowed", `{"queue":"q","type":"NOPE"}`, 422, api.CodeTypeNotAllowed, dispatch.BuiltinTypes()},
		{"malformed", `{"queue":"q",`, 400, api.CodeBadJSON, nil},
		{"not json", `hello`, 400, api.CodeBadJSON, nil},
		{"empty body", ``, 400, api.CodeBadJSON, nil},
		{"null body", `null`, 400, api.CodeBadJSON, nil},
		{"empty array body", `[]`, 400, api.CodeBadJSON, []string{"empty array"}},
		{"string body", `"q"`, 400, api.CodeBadJSON, nil},
		{"unknown field", `{"queue":"q","type":"` + typ + `","fee":1}`, 400, api.CodeBadJSON, []string{`"fee"`}},
		{"field in another case", `{"Queue":"q","type":"` + typ + `"}`, 400, api.CodeBadJSON, nil},
		{"duplicate field", `{"queue":"q","queue":"r","type":"` + typ + `"}`, 400, api.CodeBadJSON, nil},
		{"trailing data", `{"queue":"q","type":"` + typ + `"} {}`, 400, api.CodeBadJSON, nil},
		{"queue not a string", `{"queue":1,"type":"` + typ + `"}`, 400, api.CodeBadJSON, nil},
		{"queue null", `{"queue":null,"type":"` + typ + `"}`, 400, api.CodeBadJSON, nil},
		{"bad data", `{"queue":"q","type":"` + typ + `","data":{]}`, 400, api.CodeBadJSON, nil},
		{"invalid utf-8", "{\"queue\":\"q\xff\",\"type\":\"" + typ + "\"}", 400, api.CodeBadJSON, nil},
		{"too large", big, 413, api.CodeTooLarge, []string{"limit of 1048576 bytes"}},
		{"missing queue", `{"type":"` + typ + `"}`, 422, api.CodeInvalid, []string{"queue"}},
		{"missing type", `{"queue":"q"}`, 422, api.CodeInvalid, dispatch.BuiltinTypes()},
		{"queue too long", `{"queue":"` + strings.Repeat("q", sequencer.MaxQueueName+1) + `","type":"` + typ + `"}`, 422, api.CodeInvalid, nil},
		{"key too long", `{"queue":"q","type":"` + typ + `","idempotencyKey":"` + strings.Repeat("k", 257) + `"}`, 422, api.CodeInvalid, nil},
		{"control character in queue", `{"queue":"q\u0000","type":"` + typ + `"}`, 422, api.CodeInvalid, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRecords(t, e.store)
			r := e.do(t, http.MethodPost, "/v1/transactions", []byte(tt.body))
			if r.status != tt.status || r.errCode() != tt.code {
				t.Fatalf("got %d %s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			for _, m := range tt.msg {
				if !strings.Contains(r.errMessage(), m) {
					t.Errorf("message %q does not mention %q", r.errMessage(), m)
				}
			}
			if after := countRecords(t, e.store); after != before {
				t.Errorf("records %d → %d after a rejected intent", before, after)
			}
		})
	}
}

func TestIntakeIdempotency(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	first, r1 := e.post(t, "q1", typ, `{"a":[1, 2]}`, "key-1")
	if r1.status != http.StatusCreated {
		t.Fatalf("first POST: %d, want 201", r1.status)
	}
	if first.State != store.Waiting || first.Queue != "q1" || first.Type != typ || first.UID == "" || first.IdempotencyKey != "key-1" {
		t.Fatalf("first record %+v", first)
	}
	if string(first.Data) != `{"a":[1,2]}` {
		t.Errorf("data %s", first.Data)
	}
	if loc := r1.header.Get("Location"); loc != "/v1/transactions/"+first.UID {
		t.Errorf("Location %q", loc)
	}
	// Same key, same intent (whitespace aside): the existing record, no new one.
	again, r2 := e.post(t, "q1", typ, `{"a": [1,2]}`, "key-1")
	if r2.status != http.StatusOK {
		t.Fatalf("second POST: %d, want 200", r2.status)
	}
	if again.UID != first.UID || again.Seq != first.Seq {
		t.Fatalf("second POST uid %s seq %d, want %s %d", again.UID, again.Seq, first.UID, first.Seq)
	}
	// Same key, another intent: a conflict, and still no new record.
	for _, other := range []struct{ queue, data string }{{"q1", `{"b":2}`}, {"q2", `{"a":[1,2]}`}} {
		r3 := e.do(t, http.MethodPost, "/v1/transactions", []byte(`{"queue":"`+other.queue+`","type":"`+typ+`","data":`+other.data+`,"idempotencyKey":"key-1"}`))
		if r3.status != http.StatusConflict || r3.errCode() != api.CodeIdempotency {
			t.Fatalf("POST of another intent with the same key: %d %s, want 409 %s", r3.status, r3.errCode(), api.CodeIdempotency)
		}
	}
	if n := countRecords(t, e.store); n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
	// Without a key each POST is a new record; any object the type's schema
	// takes is data (none given: {}).
	for _, data := range []string{`{"s":"s"}`, `{"l":[1]}`, `{"n":3.5}`, `{"z":null}`, ``} {
		tx, r := e.post(t, "q1", typ, data, "")
		if r.status != http.StatusCreated {
			t.Fatalf("POST data %q: %d", data, r.status)
		}
		want := data
		if want == "" {
			want = "{}"
		}
		if string(tx.Data) != want {
			t.Errorf("data %s, want %s", tx.Data, want)
		}
	}
	if n := countRecords(t, e.store); n != 6 {
		t.Fatalf("%d records, want 6", n)
	}
}

func TestGet(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	tx, _ := e.post(t, "q", typ, `{}`, "")
	tests := []struct {
		path   string
		status int
		code   string
	}{
		{"/v1/transactions/" + tx.UID, 200, ""},
		{"/v1/transactions/tx_nope", 404, api.CodeNotFound},
		{"/v1/transactions/%00", 404, api.CodeNotFound},
		{"/v1/queues/q", 200, ""},
		{"/v1/queues/nope", 404, api.CodeNotFound},
		{"/v1/nope", 404, api.CodeRouteNotFound},
		{"/nope", 404, api.CodeRouteNotFound},
		{"/v1/transactions/" + tx.UID + "/more", 404, api.CodeRouteNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := e.do(t, http.MethodGet, tt.path, nil)
			if r.status != tt.status || r.errCode() != tt.code || !isJSON(r.body) {
				t.Fatalf("got %d %s, want %d %q", r.status, r.body, tt.status, tt.code)
			}
		})
	}
	got := decode[api.TransactionResponse](t, e.do(t, http.MethodGet, "/v1/transactions/"+tx.UID, nil))
	if got.Transaction.UID != tx.UID || got.Transaction.State != store.Waiting || got.History == nil || got.Transaction.Attempts == nil {
		t.Fatalf("GET %+v", got)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	for _, tt := range []struct{ method, path string }{
		{http.MethodDelete, "/v1/transactions"},
		{http.MethodPut, "/v1/transactions/x"},
		{http.MethodPost, "/v1/queues"},
		{http.MethodPost, "/healthz"},
	} {
		r := e.do(t, tt.method, tt.path, nil)
		if r.status != http.StatusMethodNotAllowed || r.errCode() != api.CodeMethodNotAllowed || r.header.Get("Allow") == "" {
			t.Errorf("%s %s: %d %s (Allow %q)", tt.method, tt.path, r.status, r.body, r.header.Get("Allow"))
		}
	}
}

func TestListPaging(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	var want []string
	for i := range 7 {
		tx, _ := e.post(t, "pq", typ, fmt.Sprintf(`{"i":%d}`, i), "")
		want = append(want, tx.UID)
	}
	e.post(t, "other", typ, `{}`, "")

	for _, base := range []string{"/v1/transactions?queue=pq&limit=3", "/v1/transactions?queue=pq&state=WAITING&limit=3"} {
		var got []string
		pages := 0
		cursor := ""
		for {
			path := base
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := e.do(t, http.MethodGet, path, nil)
			if r.status != 200 {
				t.Fatalf("GET %s: %d %s", path, r.status, r.body)
			}
			page := decode[api.ListResponse](t, r)
			pages++
			for _, tx := range page.Transactions {
				got = append(got, tx.UID)
			}
			if page.Next == "" {
				break
			}
			cursor = page.Next
			if pages > 10 {
				t.Fatal("paging does not end")
			}
		}
		if pages != 3 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: %d pages %v, want 3 pages %v", base, pages, got, want)
		}
	}
	// A full last page has no next cursor.
	page := decode[api.ListResponse](t, e.do(t, http.MethodGet, "/v1/transactions?queue=pq&limit=7", nil))
	if len(page.Transactions) != 7 || page.Next != "" {
		t.Fatalf("limit=7: %d transactions, next %q", len(page.Transactions), page.Next)
	}
	all := decode[api.ListResponse](t, e.do(t, http.MethodGet, "/v1/transactions", nil))
	if len(all.Transactions) != 8 || all.Next != "" {
		t.Fatalf("all: %d transactions, next %q", len(all.Transactions), all.Next)
	}
	none := e.do(t, http.MethodGet, "/v1/transactions?state=DONE", nil)
	if string(bytes.TrimSpace(none.body)) != `{"transactions":[],"next":""}` {
		t.Fatalf("no DONE: %s", none.body)
	}

	for _, q := range []string{"state=NOPE", "state=waiting", "limit=0", "limit=1001", "limit=x", "limit=-1", "cursor=x", "cursor=-1",
		"cursor=99999999999999999999", "foo=1", "queue=a&queue=b", "limit=%zz", "queue=a;b"} {
		r := e.do(t, http.MethodGet, "/v1/transactions?"+q, nil)
		if r.status != http.StatusBadRequest || r.errCode() != api.CodeBadQuery {
			t.Errorf("?%s: %d %s, want 400 bad_query", q, r.status, r.body)
		}
	}
}

func TestQueuesSendersHealthMetrics(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	// Before Run: 503 starting, on /healthz (with the chain's state) and
	// on /readyz.
	if r := e.do(t, http.MethodGet, "/healthz", nil); r.status != http.StatusServiceUnavailable || decode[api.HealthResponse](t, r).Status != api.StatusStarting ||
		decode[api.HealthResponse](t, r).Chain == nil {
		t.Fatalf("healthz before Run: %d %s", r.status, r.body)
	}
	if r := e.do(t, http.MethodGet, "/readyz", nil); r.status != http.StatusServiceUnavailable || strings.TrimSpace(string(r.body)) != `{"status":"starting"}` {
		t.Fatalf("readyz before Run: %d %s", r.status, r.body)
	}
	for range 3 {
		e.post(t, "qa", typ, `{}`, "")
	}
	e.post(t, "qb", typ, `{}`, "")

	qs := decode[api.QueuesResponse](t, e.do(t, http.MethodGet, "/v1/queues", nil))
	names := map[string]bool{}
	for _, q := range qs.Queues {
		names[q.Name] = true
	}
	if !names["qa"] || !names["qb"] {
		t.Fatalf("queues %+v", qs)
	}
	st := decode[store.QueueStats](t, e.do(t, http.MethodGet, "/v1/queues/qa", nil))
	if st.Queue.Name != "qa" || st.Counts[store.Waiting] != 3 {
		t.Fatalf("queue qa %+v", st)
	}
	// A queue name with a slash, escaped in the path.
	e.post(t, "a/b", typ, `{}`, "")
	if r := e.do(t, http.MethodGet, "/v1/queues/a%2Fb", nil); r.status != 200 {
		t.Fatalf("queue a/b: %d %s", r.status, r.body)
	}

	m := e.do(t, http.MethodGet, "/metrics", nil)
	if m.status != 200 || !strings.Contains(string(m.body), "ordo_sequencer_intake_total 5") {
		t.Fatalf("metrics: %d %s", m.status, m.body)
	}

	// The devchain's API is served under the same address.
	if r := e.do(t, http.MethodGet, "/v1/head", nil); r.status != 200 || !isJSON(r.body) {
		t.Fatalf("/v1/head: %d %s", r.status, r.body)
	}
}

func TestRunningNode(t *testing.T) {
	e := newEnv(t, envOptions{})
	if r := e.do(t, http.MethodGet, "/healthz", nil); r.status != 200 || decode[api.HealthResponse](t, r).Status != api.StatusOK {
		t.Fatalf("healthz: %d %s", r.status, r.body)
	}
	if r := e.do(t, http.MethodGet, "/readyz", nil); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"status":"ready"}` {
		t.Fatalf("readyz: %d %s", r.status, r.body)
	}
	ss := decode[api.SendersResponse](t, e.do(t, http.MethodGet, "/v1/senders", nil))
	if len(ss.Senders) != 4 {
		t.Fatalf("senders %+v", ss)
	}
	if r := e.do(t, http.MethodGet, "/metrics", nil); !strings.Contains(string(r.body), "ordo_sequencer_intake_total") {
		t.Fatalf("metrics lack ordo_sequencer_intake_total: %s", r.body)
	}
}

// TestReachesDone follows a transaction posted over HTTP until it is DONE,
// with the devchain producing blocks every 50ms on the real clock.
func TestReachesDone(t *testing.T) {
	e := newEnv(t, envOptions{BlockTime: 50 * time.Millisecond})
	tx, r := e.post(t, "zkapp-done", typ, `{"title":"vote"}`, "done-1")
	if r.status != http.StatusCreated {
		t.Fatalf("POST: %d", r.status)
	}
	got := pollUntil(t, e, tx.UID, 30*time.Second, func(s store.TxState) bool { return s == store.Done || s == store.Failed })
	if got.Transaction.State != store.Done {
		t.Fatalf("ended %s: %+v", got.Transaction.State, got)
	}
	if len(got.Transaction.Attempts) == 0 || got.Transaction.Attempts[len(got.Transaction.Attempts)-1].Hash == "" {
		t.Errorf("attempts %+v", got.Transaction.Attempts)
	}
	if n := len(got.History); n == 0 || got.History[n-1].To != store.Done {
		t.Errorf("history %+v", got.History)
	}
	// The chain holds the zkApp the transaction deployed.
	var call struct {
		Result json.RawMessage `json:"result"`
	}
	cr := e.do(t, http.MethodPost, "/v1/call", []byte(`{"contract":"zkapp","method":"get","args":{"zkapp":"zkapp-done"}}`))
	if cr.status != 200 || json.Unmarshal(cr.body, &call) != nil || !strings.Contains(string(call.Result), `"title":"vote"`) {
		t.Fatalf("chain call: %d %s", cr.status, cr.body)
	}
}

// pollUntil GETs a transaction until done reports true for its state or the
// deadline passes.
func pollUntil(t *testing.T, e *env, uid string, within time.Duration, done func(store.TxState) bool) api.TransactionResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last api.TransactionResponse
	for {
		r := e.do(t, http.MethodGet, "/v1/transactions/"+uid, nil)
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", uid, r.status, r.body)
		}
		last = decode[api.TransactionResponse](t, r)
		if done(last.Transaction.State) {
			return last
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s still %s after %v: %+v", uid, last.Transaction.State, within, last)
		case <-tick.C:
		}
	}
}

// TestDocumentsServed checks GET /openapi.json and GET /openrpc.json
// answer the committed documents.
func TestDocumentsServed(t *testing.T) {
	e := newEnv(t, envOptions{})
	for path, doc := range map[string][]byte{api.OpenAPIPath: apispec.OpenAPI, ptx.OpenRPCPath: apispec.OpenRPC} {
		r := e.do(t, http.MethodGet, path, nil)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || !bytes.Equal(r.body, doc) {
			t.Errorf("GET %s: %d %s, %d bytes; want the %d bytes of the committed document", path, r.status, r.header.Get("Content-Type"), len(r.body), len(doc))
		}
	}
}
