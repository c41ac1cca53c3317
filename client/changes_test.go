package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
)

// errEnough stops a Changes call once the test has read what it needs.
var errEnough = errors.New("enough")

// TestChanges: Changes streams a record's transitions in order, calls
// Opened before any, resumes after an ID, refuses a bad ID with an
// *APIError, and returns ErrStreamEnded when the node ends the stream.
func TestChanges(t *testing.T) {
	n, err := apitest.Start(apitest.Options{BlockTime: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	c := client.New(n.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var got []client.Change
	opened := false
	var uid string
	err = c.Changes(ctx, client.ChangesOptions{Queue: "zk-changes", Opened: func() {
		opened = true
		tx, _, err := c.Send(ctx, client.Intake{Queue: "zk-changes", Type: "CREATE_CLAIM_VOTING_ACCOUNT", Data: []byte(`{"title":"c"}`)})
		if err != nil {
			t.Errorf("Send: %v", err)
		}
		uid = tx.UID
	}}, func(ch client.Change) error {
		if len(got) == 0 && !opened {
			t.Error("a change before Opened")
		}
		got = append(got, ch)
		if ch.To == client.StateDone || ch.To == client.StateFailed {
			return errEnough
		}
		return nil
	})
	if !errors.Is(err, errEnough) {
		t.Fatalf("Changes: %v, want the callback's error", err)
	}
	if len(got) < 2 || got[0].UID != uid || got[0].From != client.StateWaiting || got[len(got)-1].To != client.StateDone {
		t.Fatalf("changes %+v: want %s from WAITING to DONE", got, uid)
	}

	// Resumed after the first, the stream starts at the second.
	err = c.Changes(ctx, client.ChangesOptions{After: got[0].ID}, func(ch client.Change) error {
		if ch.ID != got[1].ID {
			t.Errorf("resumed at %s, want %s", ch.ID, got[1].ID)
		}
		return errEnough
	})
	if !errors.Is(err, errEnough) {
		t.Fatalf("Changes after %s: %v", got[0].ID, err)
	}

	var ae *client.APIError
	if err := c.Changes(ctx, client.ChangesOptions{After: "nonsense"}, func(client.Change) error { return nil }); !errors.As(err, &ae) || ae.Code != client.CodeBadQuery {
		t.Fatalf("Changes after a bad ID: %v, want bad_query", err)
	}

	// The node ends the stream (its shutdown): ErrStreamEnded.
	err = c.Changes(ctx, client.ChangesOptions{Opened: n.Streams.End}, func(client.Change) error { return nil })
	if !errors.Is(err, client.ErrStreamEnded) {
		t.Fatalf("Changes when the node ends the stream: %v, want ErrStreamEnded", err)
	}
}
