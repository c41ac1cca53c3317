package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
)

// TestErrors checks how answers that are not the node's usual ones become
// errors, against a fake server.
func TestErrors(t *testing.T) {
	var lastQuery, lastPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lastQuery, lastPath = r.URL.RawQuery, r.URL.EscapedPath()
		switch r.URL.Path {
		case "/healthz":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"starting"}`))
		case "/v1/transactions":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"transactions":[{"uid":"tx_1","state":"WAITING","seq":1}],"next":"1"}`))
		case "/v1/senders":
			_, _ = w.Write([]byte(`not json`))
		default:
			http.Error(w, "bad gateway", http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL+"/", srv.Client())

	var ae *client.APIError
	if err := c.Health(ctx); !errors.As(err, &ae) || ae.Status != 503 || ae.Code != client.CodeStarting {
		t.Errorf("Health: %v", err)
	}
	txs, next, err := c.List(ctx, client.ListOptions{Queue: "a b", State: client.StateWaiting, Limit: 5, Cursor: "9"})
	if err != nil || len(txs) != 1 || txs[0].UID != "tx_1" || next != "1" {
		t.Errorf("List: %v %v %q", txs, err, next)
	}
	if lastQuery != "cursor=9&limit=5&queue=a+b&state=WAITING" {
		t.Errorf("List query %q", lastQuery)
	}
	if _, err := c.Queue(ctx, "a/b"); !errors.As(err, &ae) || ae.Status != 502 || ae.Code != "http_502" || ae.Message != "bad gateway" {
		t.Errorf("Queue: %v", err)
	}
	if lastPath != "/v1/queues/a%2Fb" {
		t.Errorf("Queue path %q", lastPath)
	}
	if _, err := c.Senders(ctx); err == nil || errors.As(err, &ae) {
		t.Errorf("Senders with a body that is not JSON: %v", err)
	}
	srv.Close()
	if _, _, err := c.Send(ctx, client.Intake{Queue: "q", Type: "T"}); err == nil || errors.As(err, &ae) {
		t.Errorf("Send to a closed server: %v", err)
	}
}

// Queues follows the pages of GET /v1/queues; QueuesPage asks for one.
func TestQueuesPages(t *testing.T) {
	var queries []string
	pages := map[string]string{
		"":   `{"queues":[{"name":"a"},{"name":"b"}],"next":"Yg"}`,
		"Yg": `{"queues":[{"name":"c"},{"name":"d"}],"next":"ZA"}`,
		"ZA": `{"queues":[{"name":"e"}],"next":""}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(pages[r.URL.Query().Get("cursor")]))
	}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL, srv.Client())
	qs, err := c.Queues(ctx)
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
	}
	if err != nil || strings.Join(names, ",") != "a,b,c,d,e" {
		t.Fatalf("Queues: %v %v", names, err)
	}
	if strings.Join(queries, " ") != "limit=1000 cursor=Yg&limit=1000 cursor=ZA&limit=1000" {
		t.Fatalf("queries %q", queries)
	}
	queries = nil
	qs, next, err := c.QueuesPage(ctx, client.PageOptions{Limit: 2, Cursor: "Yg"})
	if err != nil || len(qs) != 2 || qs[0].Name != "c" || next != "ZA" || queries[0] != "cursor=Yg&limit=2" {
		t.Fatalf("QueuesPage: %v %q %v %q", qs, next, err, queries)
	}
	queries = nil
	if _, _, err := c.QueuesPage(ctx, client.PageOptions{}); err != nil || queries[0] != "" {
		t.Fatalf("QueuesPage without options: %v %q", err, queries)
	}
}

// Send refuses a name that is not valid UTF-8 rather than let encoding/json
// replace its bytes with U+FFFD.
func TestSendRefusesInvalidUTF8(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests++ }))
	defer srv.Close()
	c := client.New(srv.URL, srv.Client())
	for _, in := range []client.Intake{{Queue: "q\xff", Type: "T"}, {Queue: "q", Type: "T\xfe"}, {Queue: "q", Type: "T", IdempotencyKey: "\xed\xa0\x80"}} {
		if _, _, err := c.Send(context.Background(), in); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Errorf("Send(%q): %v", in, err)
		}
	}
	if requests != 0 {
		t.Fatalf("%d requests sent", requests)
	}
}

// SendMany against a real node: results in order, created or found by the
// idempotency key, refusals item by item; what the node refuses whole and
// what the client refuses before sending.
func TestSendMany(t *testing.T) {
	n, err := apitest.Start(apitest.Options{NoRun: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("closing the node: %v", err)
		}
	})
	ctx := context.Background()
	c := client.New(n.URL, nil)
	vote := func(q, data, key string) client.Intake {
		return client.Intake{Queue: q, Type: "SEND_CLAIM_VOTE", Data: json.RawMessage(data), IdempotencyKey: key}
	}
	first, err := c.SendMany(ctx, []client.Intake{vote("m", `{"a":1}`, "m1"), vote("m", `{"a":2}`, "")})
	if err != nil || len(first) != 2 || !first[0].Created || !first[1].Created || first[0].Err != nil {
		t.Fatalf("first: %+v %v", first, err)
	}
	tests := []struct {
		name    string
		in      []client.Intake
		created []bool
		codes   []string // "" for a record
		wantErr string   // for the request as a whole
	}{
		{name: "a repeat, a conflict, a new one", in: []client.Intake{vote("m", `{"a":1}`, "m1"), vote("m", `{"a":9}`, "m1"), vote("m", `{}`, "")},
			created: []bool{false, false, true}, codes: []string{"", client.CodeIdempotency, ""}},
		{name: "invalid items", in: []client.Intake{vote("m", `{"zkapp":1}`, ""), {Queue: "m", Type: "NOPE"}, vote("m", `{}`, "")},
			created: []bool{false, false, true}, codes: []string{client.CodeInvalid, client.CodeTypeNotAllowed, ""}},
		{name: "none", in: nil, wantErr: "1 to 1000"},
		{name: "too many", in: make([]client.Intake, client.MaxSendMany+1), wantErr: "1 to 1000"},
		{name: "bad utf-8", in: []client.Intake{vote("m", `{}`, ""), {Queue: "m\xff", Type: "T"}}, wantErr: "intent 1: queue is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.SendMany(ctx, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || res != nil {
					t.Fatalf("%v %v, want %q", res, err, tt.wantErr)
				}
				return
			}
			if err != nil || len(res) != len(tt.in) {
				t.Fatalf("%+v %v", res, err)
			}
			for i, r := range res {
				var ae *client.APIError
				switch {
				case tt.codes[i] != "":
					if !errors.As(r.Err, &ae) || ae.Code != tt.codes[i] || r.Transaction.UID != "" {
						t.Errorf("item %d: %+v, want %s", i, r, tt.codes[i])
					}
				case r.Err != nil || r.Created != tt.created[i] || r.Transaction.UID == "":
					t.Errorf("item %d: %+v, want created %v", i, r, tt.created[i])
				}
			}
			if tt.codes[0] == "" && !res[0].Created && res[0].Transaction.UID != first[0].Transaction.UID {
				t.Errorf("repeat: uid %s, want %s", res[0].Transaction.UID, first[0].Transaction.UID)
			}
		})
	}
}

// CancelNonce posts the nonce and what then to the sender's cancel route
// and reads the node's answer; a cancel of nothing is a 404
// nothing_to_cancel APIError.
func TestCancelNonce(t *testing.T) {
	t.Parallel()
	var body map[string]any
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.EscapedPath()
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		if body["nonce"] == float64(9) {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"nothing_to_cancel","message":"no attempt of the sender is pending at that nonce"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"sender":"0xab","nonce":4,"then":"requeue","uid":"tx_1"}`))
	}))
	defer srv.Close()
	c := client.New(srv.URL, srv.Client())
	got, err := c.CancelNonce(t.Context(), "0xab", 4, "requeue")
	if err != nil || got.UID != "tx_1" || got.Then != "requeue" || path != "/v1/senders/0xab/cancel" || body["then"] != "requeue" || body["nonce"] != float64(4) {
		t.Fatalf("CancelNonce: %+v %v (path %s, body %v)", got, err, path, body)
	}
	var ae *client.APIError
	if _, err := c.CancelNonce(t.Context(), "0xab", 9, "fail"); !errors.As(err, &ae) || ae.Status != 404 || ae.Code != "nothing_to_cancel" {
		t.Fatalf("a cancel of nothing: %v", err)
	}
}
