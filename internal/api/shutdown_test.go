package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// TestDrain: once stopped, a request that may change state is answered
// 503 shutting_down without reaching the handler, a read still is served,
// and Stop's channel closes when the request under way has been answered.
func TestDrain(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	reached := 0
	var d Drain
	h := d.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		if r.Method == http.MethodPost {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusCreated)
	}))
	slow := make(chan *httptest.ResponseRecorder)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/transactions", strings.NewReader("{}")))
		slow <- rec
	}()
	<-entered
	n, idle := d.Stop()
	if n != 1 {
		t.Fatalf("Stop: %d under way, want 1", n)
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(m, "/rpc", strings.NewReader("{}")))
		var body httpjson.ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusServiceUnavailable || body.Error.Code != CodeShuttingDown || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("%s while stopping: %d %q (Retry-After %q), want 503 %s", m, rec.Code, rec.Body, rec.Header().Get("Retry-After"), CodeShuttingDown)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/transactions", nil))
	if rec.Code != http.StatusCreated {
		t.Fatalf("GET while stopping: %d, want it served", rec.Code)
	}
	select {
	case <-idle:
		t.Fatal("idle before the request under way was answered")
	default:
	}
	close(release)
	if r := <-slow; r.Code != http.StatusCreated {
		t.Fatalf("the request under way: %d, want it served", r.Code)
	}
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("idle not closed after the request under way was answered")
	}
	if reached != 2 || d.Refused() != 4 {
		t.Fatalf("handler reached %d times (want 2: the POST under way and the GET), refused %d (want 4)", reached, d.Refused())
	}
}
