package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/clock"
)

// as sends one JSON request as the principal of token.
func (e *env) as(t *testing.T, token, method, path, body string) response {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// Intake is limited per principal on the node's clock (here a virtual
// one): past its bucket a single intent, an array and a processor's batch
// add are answered 429 rate_limited with Retry-After, and nothing is taken;
// another principal has its own bucket; time refills it.
func TestIntakeRateLimit(t *testing.T) {
	clk := clock.NewVirtual(clock.Epoch)
	lim := auth.NewLimiter(auth.LimiterConfig{Default: auth.Limit{PerSecond: 2, Burst: 3},
		Principals: map[string]auth.Limit{"admin": {}}}, clk.Now) // the admin is exempt
	e := newEnv(t, envOptions{Principals: principals, IntakeLimiter: lim})
	n := 0
	intent := func() string {
		n++
		return fmt.Sprintf(`{"queue":"rl","type":%q,"data":{},"idempotencyKey":"k%d"}`, typ, n)
	}
	limited := func(r response, retry string) {
		t.Helper()
		if r.status != http.StatusTooManyRequests || r.errCode() != auth.CodeRateLimited || r.header.Get("Retry-After") != retry ||
			!strings.Contains(r.errMessage(), "submitter") {
			t.Fatalf("want 429 rate_limited with Retry-After %s: %d %v %s", retry, r.status, r.header.Get("Retry-After"), r.body)
		}
	}
	post := func(token string) response {
		t.Helper()
		return e.as(t, token, "POST", "/v1/transactions", intent())
	}
	for i := range 3 {
		if r := post(tokSubmitter); r.status != http.StatusCreated {
			t.Fatalf("intent %d of the burst: %d %s", i, r.status, r.body)
		}
	}
	before := countRecords(t, e.store)
	limited(post(tokSubmitter), "1") // one more comes in 0.5 s
	if after := countRecords(t, e.store); after != before {
		t.Fatalf("a 429 took an intent: %d → %d records", before, after)
	}
	// The admin is exempt; the limit of one principal is not another's.
	for range 5 {
		if r := post(tokAdmin); r.status != http.StatusCreated {
			t.Fatalf("admin: %d %s", r.status, r.body)
		}
	}
	clk.Advance(500 * time.Millisecond)
	if r := post(tokSubmitter); r.status != http.StatusCreated {
		t.Fatalf("after 0.5 s: %d %s", r.status, r.body)
	}
	limited(post(tokSubmitter), "1")

	// An array counts its intents: on a full bucket (3) one of 5 passes,
	// and leaves the bucket 2 below empty: the next intent waits 1.5 s.
	clk.Advance(time.Minute)
	arr := "[" + strings.Join([]string{intent(), intent(), intent(), intent(), intent()}, ",") + "]"
	if r := e.as(t, tokSubmitter, "POST", "/v1/transactions", arr); r.status != http.StatusOK || strings.Count(string(r.body), `"status":201`) != 5 {
		t.Fatalf("an array of 5 on a full bucket: %d %s", r.status, r.body)
	}
	limited(post(tokSubmitter), "2")
	before = countRecords(t, e.store)
	limited(e.as(t, tokSubmitter, "POST", "/v1/transactions", "["+intent()+"]"), "2")
	if after := countRecords(t, e.store); after != before {
		t.Fatalf("a refused array took intents: %d → %d records", before, after)
	}

	// A processor's batch add counts too (its body is refused only once
	// the add is let through).
	if r := e.as(t, tokAdmin, "POST", "/v1/processors", `{"name":"rl","owner":"submitter"}`); r.status != http.StatusOK {
		t.Fatalf("creating the processor: %d %s", r.status, r.body)
	}
	clk.Advance(time.Minute)
	for i := range 3 {
		if r := e.as(t, tokSubmitter, "POST", "/v1/processors/rl/batches", `{"priority":"high"}`); r.status != http.StatusUnprocessableEntity {
			t.Fatalf("batch add %d of the burst: %d %s", i, r.status, r.body)
		}
	}
	limited(e.as(t, tokSubmitter, "POST", "/v1/processors/rl/batches", `{"priority":"high"}`), "1")
}

// A processor's owner is one of the node's principals; a caller who is
// neither its owner nor an admin hears 403 before anything is said of its
// request's body or path.
func TestProcessorOwnerChecks(t *testing.T) {
	e := newEnv(t, envOptions{Principals: principals})
	for _, tc := range []struct {
		name, token, method, path, body string
		status                          int
		code                            string
	}{
		{"owner who is no principal", tokAdmin, "POST", "/v1/processors", `{"name":"p1","owner":"mallory"}`, 422, "invalid"},
		{"owner in another case", tokAdmin, "POST", "/v1/processors", `{"name":"p1","owner":"Submitter"}`, 422, "invalid"},
		{"the admin, by default", tokAdmin, "POST", "/v1/processors", `{"name":"p0"}`, 200, ""},
		{"a principal", tokAdmin, "POST", "/v1/processors", `{"name":"p1","owner":"submitter"}`, 200, ""},
		{"a principal without a role", tokAdmin, "POST", "/v1/processors", `{"name":"p2","owner":"nobody"}`, 200, ""},

		{"stranger, bad batch", tokReader, "POST", "/v1/processors/p1/batches", `{"priority":"high"}`, 403, "forbidden"},
		{"stranger, batch of bad JSON", tokReader, "POST", "/v1/processors/p1/batches", `{"priority":`, 403, "forbidden"},
		{"stranger, bad position", tokReader, "DELETE", "/v1/processors/p1/queues/high/-1", `{}`, 403, "forbidden"},
		{"stranger, bad confirmation", tokReader, "POST", "/v1/processors/p1/confirmations", `{}`, 403, "forbidden"},
		{"stranger, pause", tokNobody, "POST", "/v1/processors/p1/pause", `{}`, 403, "forbidden"},
		{"stranger, no such processor", tokReader, "POST", "/v1/processors/none/batches", `{}`, 404, "not_found"},

		{"owner, bad batch", tokSubmitter, "POST", "/v1/processors/p1/batches", `{"priority":"high"}`, 422, "invalid"},
		{"owner, batch of bad JSON", tokSubmitter, "POST", "/v1/processors/p1/batches", `{"priority":`, 400, "bad_json"},
		{"owner, bad position", tokSubmitter, "DELETE", "/v1/processors/p1/queues/high/-1", `{}`, 422, "invalid"},
		{"owner, bad confirmation", tokSubmitter, "POST", "/v1/processors/p1/confirmations", `{}`, 422, "invalid"},
		{"admin, bad batch", tokAdmin, "POST", "/v1/processors/p1/batches", `{"priority":"high"}`, 422, "invalid"},
	} {
		r := e.as(t, tc.token, tc.method, tc.path, tc.body)
		if r.status != tc.status || r.errCode() != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.code)
		}
		if tc.code == "invalid" && tc.path == "/v1/processors" && !strings.Contains(r.errMessage(), "no principal of this node") {
			t.Errorf("%s: %s", tc.name, r.body)
		}
	}
	if r := e.as(t, tokAdmin, "GET", "/v1/processors/p1", ""); !strings.Contains(string(r.body), `"owner":"submitter"`) {
		t.Fatalf("p1: %d %s", r.status, r.body)
	}
}
