package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// POST /v1/senders/{id}/cancel: a cancel of a nonce nothing holds is 404
// nothing_to_cancel, one of a sender the node does not have too, an
// unknown then is 422 invalid, an unknown field 400; nothing changes.
func TestCancelNonceRoute(t *testing.T) {
	e := newEnv(t, envOptions{})
	senders := e.do(t, http.MethodGet, "/v1/senders", nil)
	if senders.status != http.StatusOK {
		t.Fatalf("GET /v1/senders: %d", senders.status)
	}
	var sender string
	if i := strings.Index(string(senders.body), `"id":"`); i >= 0 {
		rest := string(senders.body)[i+6:]
		sender = rest[:strings.IndexByte(rest, '"')]
	}
	if sender == "" {
		t.Fatalf("no sender in %s", senders.body)
	}
	for _, tc := range []struct {
		name, sender, body string
		status             int
		code               string
	}{
		{"nothing pending", sender, `{"nonce":0,"then":"fail"}`, http.StatusNotFound, "nothing_to_cancel"},
		{"not a sender", "nobody", `{"nonce":0,"then":"requeue"}`, http.StatusNotFound, "nothing_to_cancel"},
		{"an unknown then", sender, `{"nonce":0,"then":"maybe"}`, http.StatusUnprocessableEntity, "invalid"},
		{"an unknown field", sender, `{"nonce":0,"then":"fail","fee":1}`, http.StatusBadRequest, "bad_json"},
	} {
		r := e.do(t, http.MethodPost, "/v1/senders/"+tc.sender+"/cancel", []byte(tc.body))
		if r.status != tc.status || r.errCode() != tc.code {
			t.Errorf("%s: %d %s %q, want %d %s", tc.name, r.status, r.errCode(), r.errMessage(), tc.status, tc.code)
		}
	}
}
