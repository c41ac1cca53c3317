package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
)

// TestTxSendWait: tx send --wait returns once the intent is DONE (exit 0,
// the final record) or FAILED (the final record, and an error: exit
// non-zero), following the change stream.
func TestTxSendWait(t *testing.T) {
	n, err := apitest.Start(apitest.Options{BlockTime: 20 * time.Millisecond, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	node := "--node=" + n.URL
	send := func(key string) (client.Transaction, string, error) {
		t.Helper()
		out, _, err := runCLI(t, "", "tx", "send", node, "--queue", "zk-wait", "--type", "CREATE_CLAIM_VOTING_ACCOUNT",
			"--data", `{"title":"w"}`, "--idempotency-key", key, "--wait", "--wait-timeout", "60s")
		var tx client.Transaction
		if jerr := json.Unmarshal([]byte(out), &tx); jerr != nil {
			t.Fatalf("tx send --wait printed %q (%v; err %v)", out, jerr, err)
		}
		return tx, out, err
	}
	tx, _, err := send("w1")
	if err != nil || tx.State != client.StateDone {
		t.Fatalf("tx send --wait: state %s, err %v; want DONE and no error", tx.State, err)
	}
	// The same zkApp created again fails on chain: FAILED, exit non-zero.
	tx, _, err = send("w2")
	if tx.State != client.StateFailed || !errors.Is(err, errTxFailed) || !strings.Contains(err.Error(), tx.UID) {
		t.Fatalf("tx send --wait of a failing intent: state %s, err %v; want FAILED and errTxFailed", tx.State, err)
	}
}
