package api_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
)

// TestStorageFull: with the store out of room (SQLite's SQLITE_FULL: the
// database bounded to the pages it has), intake answers 503 storage_full
// and commits nothing, /healthz answers 503 storage_full; once there is
// room the same intent (its idempotency key) is created, /healthz is 200
// again, and what was acknowledged before is there.
func TestStorageFull(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	before := e.do(t, http.MethodPost, "/v1/transactions", []byte(`{"queue":"full-a","type":"`+typ+`"}`))
	if before.status != http.StatusCreated {
		t.Fatalf("intake before: %d %s", before.status, before.body)
	}
	// Intents of 60 KiB (each one the chain would take: under
	// chain.MaxArgs), one queue each, until one finds no room.
	if _, err := e.Store.SetMaxPages(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var big []byte
	var queue string
	for i := 0; i < 64 && big == nil; i++ {
		q := "full-b" + strconv.Itoa(i)
		body := []byte(`{"queue":"` + q + `","type":"` + typ + `","idempotencyKey":"kb","data":{"pad":"` + strings.Repeat("x", 60<<10) + `"}}`)
		switch r := e.do(t, http.MethodPost, "/v1/transactions", body); {
		case r.status == http.StatusServiceUnavailable && r.errCode() == api.CodeStorageFull:
			big, queue = body, q
		case r.status != http.StatusCreated:
			t.Fatalf("intake on a filling store: %d %.300s, want 201 or 503 %s", r.status, r.body, api.CodeStorageFull)
		}
	}
	if big == nil {
		t.Fatalf("64 intents of 60 KiB all taken on a store of bounded pages: want 503 %s", api.CodeStorageFull)
	}
	// /healthz names the condition. A write of the engines that still
	// finds room in a page clears it (the latest write succeeded), so the
	// refused intent is sent again, and must be refused again, until
	// /healthz is asked right after a refusal with no such write between.
	reported := false
	for range 20 {
		if r := e.do(t, http.MethodPost, "/v1/transactions", big); r.status != http.StatusServiceUnavailable || r.errCode() != api.CodeStorageFull {
			t.Fatalf("intake on a full store, again: %d %.300s, want 503 %s", r.status, r.body, api.CodeStorageFull)
		}
		if st, h := e.health(t); st == http.StatusServiceUnavailable && h.Status == api.StatusStorageFull &&
			len(h.Conditions) == 1 && h.Conditions[0].Code == api.StatusStorageFull {
			reported = true
			break
		}
	}
	if !reported {
		t.Fatalf("/healthz after 20 refusals on a full store: never 503 %s", api.StatusStorageFull)
	}
	if l := e.do(t, http.MethodGet, "/v1/transactions?queue="+queue, nil); !strings.Contains(string(l.body), `"transactions":[]`) {
		t.Fatalf("a refused intent was committed: %s", l.body)
	}

	if _, err := e.Store.SetMaxPages(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if r := e.do(t, http.MethodPost, "/v1/transactions", big); r.status != http.StatusCreated {
		t.Fatalf("intake once there is room: %d %s", r.status, r.body)
	}
	e.waitHealth(t, http.StatusOK, 10*time.Second)
	if g := e.do(t, http.MethodGet, "/v1/transactions?queue=full-a", nil); !strings.Contains(string(g.body), `"queue":"full-a"`) {
		t.Fatalf("the intent acknowledged before is gone: %s", g.body)
	}
}

// TestHealthConditions: the node's conditions (api.Options.Conditions)
// come first: /healthz answers 503 with the first one's code, and lists
// them with their data.
func TestHealthConditions(t *testing.T) {
	mismatch := api.Condition{Code: api.StatusChainMismatch, Message: "the store belongs to another chain",
		Data: map[string]string{"store": "devchain/1@aa", "chain": "devchain/1@bb"}}
	e := newEnv(t, envOptions{Conditions: func() []api.Condition { return []api.Condition{mismatch} }})
	st, h := e.health(t)
	if st != http.StatusServiceUnavailable || h.Status != api.StatusChainMismatch || len(h.Conditions) != 1 {
		t.Fatalf("/healthz: %d %+v, want 503 %s", st, h, api.StatusChainMismatch)
	}
	data, _ := h.Conditions[0].Data.(map[string]any)
	if data["store"] != "devchain/1@aa" || data["chain"] != "devchain/1@bb" {
		t.Fatalf("the condition's data %+v does not name both identities", h.Conditions[0].Data)
	}
}
