package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/store"
)

// principalEnv is a node whose API knows two submitters, alice and bob,
// who may also submit the engines' type call-once (the processor's).
func principalEnv(t *testing.T) *env {
	t.Helper()
	return newEnv(t, envOptions{NoRun: true,
		Principals: []auth.PrincipalConfig{
			{Principal: "alice", Token: "alice-token-0123456789abcd", Roles: []auth.Role{auth.RoleSubmit}},
			{Principal: "bob", Token: "bob-token-0123456789abcdef", Roles: []auth.Role{auth.RoleSubmit}},
		},
		TypeRoles: map[string][]auth.Role{processor.SubmitType: {auth.RoleSubmit}}})
}

// postAs sends body to POST /v1/transactions with token.
func (e *env) postAs(t *testing.T, token, body string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/transactions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// TestIntakeKeyPerPrincipal: an idempotency key is its principal's. Bob
// reusing alice's key gets a record of his own, never hers, and no answer
// to him names her uid or her queue (a conflict names his own record);
// alice reusing it gets hers back, or the conflict naming hers; an array
// behaves as the single form.
func TestIntakeKeyPerPrincipal(t *testing.T) {
	e := principalEnv(t)
	const alice, bob = "alice-token-0123456789abcd", "bob-token-0123456789abcdef"
	body := func(queue, data, key string) string {
		return `{"queue":"` + queue + `","type":"` + typ + `","data":` + data + `,"idempotencyKey":"` + key + `"}`
	}
	hersBody, hisBody := body("alice-secret-queue", `{"a":1}`, "order-1"), body("bobs-queue", `{"b":2}`, "order-1")
	decode := func(who string, r response, status int) store.Transaction {
		t.Helper()
		var tx store.Transaction
		if r.status != status || json.Unmarshal(r.body, &tx) != nil {
			t.Fatalf("%s: %d %s, want %d with a record", who, r.status, r.body, status)
		}
		return tx
	}
	hers := decode("alice's POST", e.postAs(t, alice, hersBody), http.StatusCreated)
	notHers := func(who string, r response) {
		t.Helper()
		if bytes.Contains(r.body, []byte(hers.UID)) || bytes.Contains(r.body, []byte("alice-secret-queue")) {
			t.Fatalf("%s: the answer names alice's record: %d %s", who, r.status, r.body)
		}
	}
	r := e.postAs(t, bob, hisBody)
	notHers("bob, alice's key", r)
	his := decode("bob, alice's key", r, http.StatusCreated)
	r = e.postAs(t, bob, hisBody)
	notHers("bob again", r)
	if again := decode("bob again", r, http.StatusOK); again.UID != his.UID {
		t.Fatalf("bob again: %s, want his %s", again.UID, his.UID)
	}
	// Bob sending alice's very intent under her key: a conflict with his
	// own record, which names his, not hers.
	r = e.postAs(t, bob, strings.Replace(hersBody, "alice-secret-queue", "other-queue", 1))
	notHers("bob, another intent under his key", r)
	if r.status != http.StatusConflict || r.errCode() != api.CodeIdempotency || !strings.Contains(r.errMessage(), his.UID) {
		t.Fatalf("bob, another intent under his key: %d %s, want 409 naming %s", r.status, r.body, his.UID)
	}
	// Alice: her record again, and a conflict naming only her own record.
	if again := decode("alice again", e.postAs(t, alice, hersBody), http.StatusOK); again.UID != hers.UID {
		t.Fatalf("alice again: %s, want %s", again.UID, hers.UID)
	}
	r = e.postAs(t, alice, hisBody)
	if r.status != http.StatusConflict || r.errCode() != api.CodeIdempotency || !strings.Contains(r.errMessage(), hers.UID) || strings.Contains(r.errMessage(), his.UID) {
		t.Fatalf("alice, another intent: %d %s, want 409 naming %s only", r.status, r.body, hers.UID)
	}
	// The array form: bob's items answer as the single form does.
	r = e.postAs(t, bob, `[`+body("q3", `{}`, "order-2")+`,`+hisBody+`]`)
	notHers("bob's array", r)
	var items []api.BatchResult
	if err := json.Unmarshal(r.body, &items); err != nil || len(items) != 2 || items[0].Status != 201 || items[1].Status != 200 || items[1].Transaction.UID != his.UID {
		t.Fatalf("bob's array: %d %s", r.status, r.body)
	}
	ts, err := e.store.List(t.Context(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 3 {
		t.Fatalf("%d records, want 3 (alice's, bob's order-1 and order-2)", len(ts))
	}
}

// TestIntakeReservedNames: the public intake refuses the engines' queues
// and keys (422 reserved_name), alone and in an array, and takes names
// that only resemble them.
func TestIntakeReservedNames(t *testing.T) {
	e := principalEnv(t)
	const alice = "alice-token-0123456789abcd"
	intent := func(queue, key string) string {
		s := `{"queue":"` + queue + `","type":"` + typ + `"`
		if key != "" {
			s += `,"idempotencyKey":"` + key + `"`
		}
		return s + `}`
	}
	for _, tc := range []struct {
		name, body string
		refused    bool
	}{
		{"a leader channel", intent("leader/0", ""), true},
		{"a processor lane", intent("processor/p1", ""), true},
		{"a distseq pipeline", intent("distseq/c1", ""), true},
		{"the node registration", intent("nodes/n1", ""), true},
		{"the replica-set queue", intent("smm/replicasets", ""), true},
		{"a leader key", intent("q", "leader/walk-1/1"), true},
		{"a replica-set key", intent("q", "replicasets/q/1/ab"), true},
		{"a distseq key", intent("q", "distseq/x"), true},
		{"a name that only starts alike", intent("leaderboard", "processors"), false},
		{"another case", intent("Leader/0", ""), false},
	} {
		r := e.postAs(t, alice, tc.body)
		switch {
		case tc.refused && (r.status != http.StatusUnprocessableEntity || r.errCode() != api.CodeReserved):
			t.Errorf("%s: %d %s, want 422 %s", tc.name, r.status, r.body, api.CodeReserved)
		case !tc.refused && r.status != http.StatusCreated:
			t.Errorf("%s: %d %s, want 201", tc.name, r.status, r.body)
		}
		if tc.refused {
			r = e.postAs(t, alice, `[`+tc.body+`]`)
			var items []api.BatchResult
			if err := json.Unmarshal(r.body, &items); err != nil || len(items) != 1 || items[0].Status != 422 || items[0].Error.Code != api.CodeReserved {
				t.Errorf("%s in an array: %d %s", tc.name, r.status, r.body)
			}
		}
	}
}

// TestIntakeUnsendableNumbers: a number the chain's encoding refuses is a
// 422 at intake, in a contract call's args (call-once, as call) and in any
// type's data; large numbers that fit a float64 are taken.
func TestIntakeUnsendableNumbers(t *testing.T) {
	e := principalEnv(t)
	const alice = "alice-token-0123456789abcd"
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"call args", `{"queue":"q","type":"call-once","data":{"contract":"zkapp","method":"deploy","args":{"zkapp":"a","x":1e999999}}}`, 422},
		{"multi-call args", `{"queue":"q","type":"call-once","data":{"calls":[{"contract":"zkapp","method":"deploy","args":[-1E400]}]}}`, 422},
		{"a builtin type's data", `{"queue":"q","type":"` + typ + `","data":{"zkapp":"a","n":1e999999}}`, 422},
		{"a large integer", `{"queue":"q","type":"call-once","data":{"contract":"zkapp","method":"deploy","args":{"x":123456789012345678901234567890}}}`, 201},
		{"a tiny number", `{"queue":"q","type":"call-once","data":{"contract":"zkapp","method":"deploy","args":{"x":1e-999999}}}`, 201},
	} {
		r := e.postAs(t, alice, tc.body)
		if r.status != tc.status || (tc.status == 422 && (r.errCode() != api.CodeInvalid || !strings.Contains(r.errMessage(), "chain's encoding"))) {
			t.Errorf("%s: %d %s, want %d", tc.name, r.status, r.body, tc.status)
		}
	}
}

// TestIntakeRefusesDataPastTheChainsLimit: data whose transaction would be
// over chain.MaxArgs is a 422 at intake, not an intent that fails at its
// first dispatch; data just under it is taken.
func TestIntakeRefusesDataPastTheChainsLimit(t *testing.T) {
	t.Parallel()
	e := principalEnv(t)
	const alice = "alice-token-0123456789abcd"
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"a builtin type, title past the limit", `{"queue":"q","type":"` + typ + `","data":{"title":"` + long(chain.MaxArgs) + `"}}`, 422},
		{"a builtin type, title near the limit", `{"queue":"q","type":"` + typ + `","data":{"title":"` + long(chain.MaxArgs-20) + `"}}`, 422},
		{"a builtin type, a large title that fits", `{"queue":"q","type":"` + typ + `","data":{"title":"` + long(chain.MaxArgs/2) + `"}}`, 201},
		{"call args past the limit", `{"queue":"q","type":"call-once","data":{"contract":"zkapp","method":"deploy","args":{"s":"` + long(chain.MaxArgs) + `"}}}`, 422},
	} {
		r := e.postAs(t, alice, tc.body)
		if r.status != tc.status || (tc.status == 422 && r.errCode() != api.CodeInvalid) {
			t.Errorf("%s: %d %.300s, want %d", tc.name, r.status, r.body, tc.status)
		}
	}
}
