package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// Names are refused, never replaced: invalid UTF-8, lone surrogates
// (escaped in JSON, which encoding/json would turn into U+FFFD), U+FFFD
// itself, whitespace-only names, bidirectional-formatting and zero-width
// characters; data may not hold a lone surrogate, a repeated key or nest
// deeper than the limit. Every refusal names its field and creates nothing.
func TestIntakeLenientInputs(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	intent := func(queue, key, data string) string {
		s := `{"queue":"` + queue + `","type":"` + typ + `"`
		if key != "" {
			s += `,"idempotencyKey":"` + key + `"`
		}
		if data != "" {
			s += `,"data":` + data
		}
		return s + "}"
	}
	tests := []struct {
		name   string
		body   string
		status int
		code   string
		msg    []string // parts of the message
	}{
		{"escaped lone high surrogate", intent(`q\ud800`, "", ""), 422, api.CodeInvalid, []string{"queue", `\ud800`, "surrogate"}},
		{"escaped lone low surrogate", intent(`q\uDC00`, "", ""), 422, api.CodeInvalid, []string{"queue", `\uDC00`}},
		{"escaped high surrogate then a letter", intent(`q\ud800x`, "", ""), 422, api.CodeInvalid, []string{"queue"}},
		{"raw surrogate bytes", "{\"queue\":\"q\xed\xa0\x80\",\"type\":\"" + typ + "\"}", 400, api.CodeBadJSON, []string{"UTF-8"}},
		{"escaped replacement character", intent(`q\ufffd`, "", ""), 422, api.CodeInvalid, []string{"queue", "U+FFFD"}},
		{"raw replacement character", intent("q\uFFFD", "", ""), 422, api.CodeInvalid, []string{"queue", "U+FFFD"}},
		{"whitespace only", intent(`   `, "", ""), 422, api.CodeInvalid, []string{"queue is only whitespace"}},
		{"escaped whitespace only", intent(`\u00a0\u2003`, "", ""), 422, api.CodeInvalid, []string{"queue is only whitespace"}},
		{"RLO", intent(`claim\u202e1`, "", ""), 422, api.CodeInvalid, []string{"queue", "U+202E"}},
		{"RLI", intent("claim\u20671", "", ""), 422, api.CodeInvalid, []string{"queue", "U+2067"}},
		{"zero-width space", intent(`claim\u200b1`, "", ""), 422, api.CodeInvalid, []string{"queue", "U+200B"}},
		{"BOM", intent(`\ufeffclaim`, "", ""), 422, api.CodeInvalid, []string{"queue", "U+FEFF"}},
		{"word joiner", intent(`a\u2060b`, "", ""), 422, api.CodeInvalid, []string{"U+2060"}},
		{"escaped control", intent(`a\u0007`, "", ""), 422, api.CodeInvalid, []string{"queue", "U+0007"}},
		{"C1 control", intent(`a\u009b`, "", ""), 422, api.CodeInvalid, []string{"queue", "U+009B"}},

		{"key lone surrogate", intent("q", `k\udbff`, ""), 422, api.CodeInvalid, []string{"idempotencyKey", `\udbff`}},
		{"key whitespace", intent("q", ` `, ""), 422, api.CodeInvalid, []string{"idempotencyKey is only whitespace"}},
		{"key bidi", intent("q", `k\u202a`, ""), 422, api.CodeInvalid, []string{"idempotencyKey", "U+202A"}},
		{"key zero-width", intent("q", `k\u200d`, ""), 422, api.CodeInvalid, []string{"idempotencyKey", "U+200D"}},
		{"key replacement", intent("q", `k\ufffd`, ""), 422, api.CodeInvalid, []string{"idempotencyKey", "U+FFFD"}},
		{"type lone surrogate", `{"queue":"q","type":"T\ud800"}`, 422, api.CodeInvalid, []string{"type", `\ud800`}},

		{"data lone surrogate", intent("q", "", `{"v":"\ud800"}`), 422, api.CodeInvalid, []string{"data", `\ud800`}},
		{"data duplicate key", intent("q", "", `{"v":1,"v":2}`), 422, api.CodeInvalid, []string{"data", `"v"`, "twice"}},
		{"data depth 65", intent("q", "", strings.Repeat("[", 65)+strings.Repeat("]", 65)), 422, api.CodeInvalid, []string{"data", "64", "maxDataDepth"}},
		{"data depth 65 in objects", intent("q", "", strings.Repeat(`{"a":`, 65)+"1"+strings.Repeat("}", 65)), 422, api.CodeInvalid, []string{"data nests"}},
		{"data depth 5000", intent("q", "", strings.Repeat("[", 5000)+strings.Repeat("]", 5000)), 422, api.CodeInvalid, []string{"data nests"}},
		{"data depth 20000", intent("q", "", strings.Repeat("[", 20000)+strings.Repeat("]", 20000)), 400, api.CodeBadJSON, nil},

		{"escaped pair is fine", intent(`vote \ud83d\uddf3`, "", `{"s":"\ud83d\ude00"}`), 201, "", nil},
		{"depth 64 is fine", intent("deep", "", `{"a":`+strings.Repeat("[", 63)+strings.Repeat("]", 63)+"}"), 201, "", nil},
		{"data the type's schema refuses", intent("q", "", `[1,2]`), 422, api.CodeInvalid, []string{`"data"`, "schema", "want object"}},
		{"a field the schema refuses", intent("q", "", `{"zkapp":7}`), 422, api.CodeInvalid, []string{`"data/zkapp"`, "want string"}},
		{"letters of any script are fine", intent(`\u6295\u7968-é`, "", ""), 201, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRecords(t, e.store)
			r := e.do(t, http.MethodPost, "/v1/transactions", []byte(tt.body))
			if r.status != tt.status || r.errCode() != tt.code {
				t.Fatalf("got %d %.300s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
			for _, m := range tt.msg {
				if !strings.Contains(r.errMessage(), m) {
					t.Errorf("message %q lacks %q", r.errMessage(), m)
				}
			}
			want := before
			if tt.status == 201 {
				want++
			}
			if after := countRecords(t, e.store); after != want {
				t.Errorf("records %d → %d", before, after)
			}
		})
	}
}

// Two names that differ only in their lone surrogate are both refused: they
// never reach the store as the same U+FFFD name.
func TestLoneSurrogatesDoNotCollide(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	for _, q := range []string{`c\ud800`, `c\ud801`, `c\udfff`, `c\ufffd`} {
		r := e.do(t, http.MethodPost, "/v1/transactions", []byte(`{"queue":"`+q+`","type":"`+typ+`"}`))
		if r.status != 422 {
			t.Errorf("queue %s: %d %s", q, r.status, r.body)
		}
	}
	if n := countRecords(t, e.store); n != 0 {
		t.Fatalf("%d records", n)
	}
}

// The depth limit follows the intake rules in force.
func TestMaxDataDepthConfigured(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true, Intake: sequencer.IntakeRules{MaxDataDepth: 3}})
	for _, tt := range []struct {
		data   string
		status int
	}{{`{"a":[[1]]}`, 201}, {`{"a":{"b":[1]}}`, 201}, {`{"a":[[[1]]]}`, 422}, {`{"a":{"b":{"c":{}}}}`, 422}, {`{}`, 201}} {
		r := e.do(t, http.MethodPost, "/v1/transactions", []byte(`{"queue":"q","type":"`+typ+`","data":`+tt.data+`}`))
		if r.status != tt.status {
			t.Errorf("data %s: %d %s, want %d", tt.data, r.status, r.body, tt.status)
		}
		if tt.status == 422 && (r.errCode() != api.CodeInvalid || !strings.Contains(r.errMessage(), "data nests arrays and objects deeper than 3 levels")) {
			t.Errorf("data %s: %s", tt.data, r.body)
		}
	}
}

// No error echoes an oversized input back: at most a short prefix.
func TestErrorsDoNotEchoInput(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	big := strings.Repeat("x", 100_000)
	bigU := strings.Repeat("é", 50_000)
	e.post(t, "known", typ, `{"a":1}`, "known-key")
	tests := []struct {
		name, method, path, body string
		status                   int
	}{
		{"type", "POST", "/v1/transactions", `{"queue":"q","type":"` + big + `"}`, 422},
		{"type of multi-byte runes", "POST", "/v1/transactions", `{"queue":"q","type":"` + bigU + `"}`, 422},
		{"queue", "POST", "/v1/transactions", `{"queue":"` + big + `","type":"` + typ + `"}`, 422},
		{"queue with a control character far in", "POST", "/v1/transactions", `{"queue":"` + big[:100] + `\u0001","type":"` + typ + `"}`, 422},
		{"key", "POST", "/v1/transactions", `{"queue":"q","type":"` + typ + `","idempotencyKey":"` + big + `"}`, 422},
		{"data key repeated", "POST", "/v1/transactions", `{"queue":"q","type":"` + typ + `","data":{"` + big + `":1,"` + big + `":2}}`, 422},
		{"unknown field", "POST", "/v1/transactions", `{"queue":"q","type":"` + typ + `","` + big + `":1}`, 400},
		{"unknown field of multi-byte runes", "POST", "/v1/transactions", `{"queue":"q","type":"` + typ + `","` + bigU + `":1}`, 400},
		{"conflict with a long queue", "POST", "/v1/transactions", `{"queue":"` + big[:128] + `","type":"` + typ + `","data":{"a":1},"idempotencyKey":"known-key"}`, 409},
		{"uid", "GET", "/v1/transactions/" + big, "", 404},
		{"queue name", "GET", "/v1/queues/" + big, "", 404},
		{"state", "GET", "/v1/transactions?state=" + big, "", 400},
		{"limit", "GET", "/v1/transactions?limit=" + big, "", 400},
		{"cursor", "GET", "/v1/transactions?cursor=" + big, "", 400},
		{"parameter", "GET", "/v1/transactions?" + big + "=1", "", 400},
		{"repeated parameter", "GET", "/v1/transactions?" + big + "=1&" + big + "=2", "", 400},
		{"queues cursor", "GET", "/v1/queues?cursor=" + big, "", 400},
		{"queues parameter", "GET", "/v1/queues?" + big + "=1", "", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != "" {
				body = []byte(tt.body)
			}
			r := e.do(t, tt.method, tt.path, body)
			if r.status != tt.status {
				t.Fatalf("%d %.300s, want %d", r.status, r.body, tt.status)
			}
			if len(r.body) > 1024 {
				t.Fatalf("error of %d bytes: %.300s…", len(r.body), r.body)
			}
			if strings.Contains(r.errMessage(), strings.Repeat("x", 65)) || strings.Contains(r.errMessage(), strings.Repeat("é", 33)) {
				t.Fatalf("message quotes more than 64 bytes: %s", r.body)
			}
		})
	}
}

// Idempotency compares intents in canonical JSON; a conflict names what
// differs.
func TestIdempotencyCanonical(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	first, r := e.post(t, "q1", typ, `{"a":1,"b":[1,2],"c":{"y":"A","x":null}}`, "k")
	if r.status != 201 {
		t.Fatalf("first: %d", r.status)
	}
	tests := []struct {
		name        string
		queue, typ  string
		data        string
		status      int
		differs     []string // named in the 409's message
		doesNotName []string
	}{
		{"same", "q1", typ, `{"a":1,"b":[1,2],"c":{"y":"A","x":null}}`, 200, nil, nil},
		{"keys reordered", "q1", typ, `{"c":{"x":null,"y":"A"},"b":[1,2],"a":1}`, 200, nil, nil},
		{"whitespace", "q1", typ, "{ \"a\" : 1 ,\n\"b\":[ 1 , 2 ],\t\"c\":{\"y\":\"A\",\"x\":null} }", 200, nil, nil},
		{"escapes", "q1", typ, `{"\u0061":1,"b":[1,2],"c":{"y":"\u0041","x":null}}`, 200, nil, nil},
		{"number written otherwise", "q1", typ, `{"a":1.0,"b":[1,2],"c":{"y":"A","x":null}}`, 409, []string{"data"}, []string{"queue", "type"}},
		{"array reordered", "q1", typ, `{"a":1,"b":[2,1],"c":{"y":"A","x":null}}`, 409, []string{"data"}, []string{"queue", "type ("}},
		{"another queue", "q2", typ, `{"a":1,"b":[1,2],"c":{"y":"A","x":null}}`, 409, []string{`queue ("q1" there, "q2" here)`}, []string{"data", "type ("}},
		{"another type", "q1", sequencer.SendClaimVote, `{"b":[1,2],"a":1,"c":{"y":"A","x":null}}`, 409, []string{"type (", sequencer.SendClaimVote}, []string{"data", "queue"}},
		{"everything", "q3", sequencer.SendClaimVote, `{}`, 409, []string{"queue (", "type (", "data"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := fmt.Sprintf(`{"queue":%q,"type":%q,"data":%s,"idempotencyKey":"k"}`, tt.queue, tt.typ, tt.data)
			r := e.do(t, http.MethodPost, "/v1/transactions", []byte(b))
			if r.status != tt.status {
				t.Fatalf("%d %s, want %d", r.status, r.body, tt.status)
			}
			if tt.status == 200 {
				if got := decode[struct{ UID string }](t, r); got.UID != first.UID {
					t.Fatalf("uid %s, want %s", got.UID, first.UID)
				}
				return
			}
			msg := r.errMessage()
			if r.errCode() != api.CodeIdempotency || !strings.Contains(msg, first.UID) {
				t.Fatalf("error %s", r.body)
			}
			for _, d := range tt.differs {
				if !strings.Contains(msg, d) {
					t.Errorf("message %q does not name %q", msg, d)
				}
			}
			// The part after the uid names only what differs.
			_, rest, _ := strings.Cut(msg, "differs from this intent in ")
			for _, d := range tt.doesNotName {
				if strings.Contains(rest, d) {
					t.Errorf("message %q names %q, which is the same", msg, d)
				}
			}
		})
	}
	if n := countRecords(t, e.store); n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
}

// GET /v1/queues pages as GET /v1/transactions does: limit, cursor, and
// "next" empty on the last page.
func TestQueuesPaging(t *testing.T) {
	e := newEnv(t, envOptions{NoRun: true})
	names := []string{"a/b", "b", "c d", "é", "z", "投票", "q?x=1&y"}
	for _, n := range names {
		e.post(t, n, typ, `{}`, "")
	}
	e.post(t, "b", typ, `{}`, "") // a second transaction makes no second queue
	slices.Sort(names)

	for _, limit := range []int{1, 2, 3, 6, 7, 8, 1000} {
		var got []string
		pages, cursor := 0, ""
		for {
			path := fmt.Sprintf("/v1/queues?limit=%d", limit)
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			r := e.do(t, http.MethodGet, path, nil)
			if r.status != 200 {
				t.Fatalf("GET %s: %d %s", path, r.status, r.body)
			}
			page := decode[api.QueuesResponse](t, r)
			if len(page.Queues) > limit || (page.Next != "" && len(page.Queues) != limit) {
				t.Fatalf("limit %d: a page of %d, next %q", limit, len(page.Queues), page.Next)
			}
			for _, q := range page.Queues {
				got = append(got, q.Name)
			}
			pages++
			if page.Next == "" {
				break
			}
			cursor = page.Next
			if pages > 20 {
				t.Fatal("paging does not end")
			}
		}
		if wantPages := max(1, (len(names)+limit-1)/limit); pages != wantPages || !slices.Equal(got, names) {
			t.Fatalf("limit %d: %d pages %q, want %d pages %q", limit, pages, got, wantPages, names)
		}
	}
	// The default page holds them all, with no next; the body has the
	// transaction list's shape.
	r := e.do(t, http.MethodGet, "/v1/queues", nil)
	if page := decode[api.QueuesResponse](t, r); len(page.Queues) != len(names) || page.Next != "" || !strings.Contains(string(r.body), `"next":""`) {
		t.Fatalf("default page: %s", r.body)
	}
	// A queue made after a cursor was handed out appears on a later page.
	p1 := decode[api.QueuesResponse](t, e.do(t, http.MethodGet, "/v1/queues?limit=2", nil))
	e.post(t, "zz", typ, `{}`, "")
	var rest []string
	for c := p1.Next; c != ""; {
		p := decode[api.QueuesResponse](t, e.do(t, http.MethodGet, "/v1/queues?limit=2&cursor="+url.QueryEscape(c), nil))
		for _, q := range p.Queues {
			rest = append(rest, q.Name)
		}
		c = p.Next
	}
	if !slices.Contains(rest, "zz") || slices.Contains(rest, p1.Queues[0].Name) {
		t.Fatalf("after the first page: %q", rest)
	}

	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "limit=-1", "cursor=!!", "cursor=a=", "queue=a", "state=DONE",
		"foo=1", "limit=1&limit=2", "limit=%zz", "cursor=a;b"} {
		r := e.do(t, http.MethodGet, "/v1/queues?"+q, nil)
		if r.status != http.StatusBadRequest || r.errCode() != api.CodeBadQuery {
			t.Errorf("?%s: %d %s, want 400 bad_query", q, r.status, r.body)
		}
	}
	// Empty values count as absent, as on the transaction list.
	if r := e.do(t, http.MethodGet, "/v1/queues?limit=&cursor=", nil); r.status != 200 {
		t.Fatalf("empty parameters: %d %s", r.status, r.body)
	}
}
