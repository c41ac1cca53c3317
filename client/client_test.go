package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ordolabs/ordo/client"
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
