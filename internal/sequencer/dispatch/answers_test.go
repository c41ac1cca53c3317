package dispatch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
)

// TestRemoteWorkerAnswers: how each answer of a worker reads.
func TestRemoteWorkerAnswers(t *testing.T) {
	tests := []struct {
		name, path, answer string
		call               func(d sequencer.Dispatcher) (sequencer.TxnResult, error)
		wantErr            string // "" for none
		permanent          bool
	}{
		{"dispatch with a hash", "/dispatch", `{"hash":"h1","error":null}`, dispatchCall, "", false},
		{"dispatch without a hash", "/dispatch", `{"hash":"","error":null}`, dispatchCall, "a success without a hash", false},
		{"dispatch error", "/dispatch", `{"hash":"","error":{"why":"busy"}}`, dispatchCall, "busy", false},
		{"dispatch permanent error", "/dispatch", `{"error":{"permanent":true}}`, dispatchCall, "permanent", true},
		{"onFailure records its error", "/onFailure", `{"hash":"h1","error":{"reason":"x"}}`, failureCall, "", false},
		{"onSuccess error is a hook error", "/onSuccess", `{"error":{"why":"db down"}}`, successCall, "db down", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tt.path {
					http.Error(w, "unexpected "+r.URL.Path, http.StatusNotFound)
					return
				}
				_, _ = w.Write([]byte(tt.answer))
			}))
			defer srv.Close()
			d := dispatch.NewRemoteWorker(srv.URL, time.Second).For(sequencer.SendClaimVote, nil)
			_, err := tt.call(d)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one with %q", err, tt.wantErr)
			case errors.Is(err, sequencer.ErrPermanent) != tt.permanent:
				t.Fatalf("error %v: permanent %v, want %v", err, !tt.permanent, tt.permanent)
			}
		})
	}
}

func dispatchCall(d sequencer.Dispatcher) (sequencer.TxnResult, error) {
	return d.Dispatch(context.Background(), sequencer.RawTxnData{UID: "u"}, sequencer.Sender{})
}

func failureCall(d sequencer.Dispatcher) (sequencer.TxnResult, error) {
	return d.OnFailure(context.Background(), sequencer.RawTxnData{UID: "u"}, sequencer.TxnResult{}, sequencer.Sender{})
}

func successCall(d sequencer.Dispatcher) (sequencer.TxnResult, error) {
	return d.OnSuccess(context.Background(), sequencer.RawTxnData{UID: "u"}, sequencer.TxnResult{}, sequencer.Sender{})
}
