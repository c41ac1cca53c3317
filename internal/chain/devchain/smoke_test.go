package devchain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/fslock"
)

func TestSmokeDeployAndPrecondition(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewVirtual(clock.Epoch)
	c, err := New(Config{Clock: clk, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	devs, _ := c.DevAccounts(ctx)
	a := devs[0].Address
	send := func(nonce uint64, method, args string) chain.Hash {
		h, err := c.SendTx(ctx, chain.Tx{From: a, Nonce: nonce, Fee: 1000, Contract: "zkapp", Method: method, Args: json.RawMessage(args), Memo: fmt.Sprintf("m%d", nonce)})
		if err != nil {
			t.Fatalf("send %s: %v", method, err)
		}
		return h
	}
	h0 := send(0, "deploy", `{"zkapp":"z1"}`)
	clk.Advance(time.Second)
	if _, _, err := c.Mine(ctx); err != nil {
		t.Fatal(err)
	}
	h1 := send(1, "set", `{"zkapp":"z1","key":"a","value":1}`)
	h2 := send(2, "set", `{"zkapp":"z1","key":"b","value":2}`)
	clk.Advance(time.Second)
	if _, _, err := c.Mine(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h       chain.Hash
		success bool
		reason  string
	}{{h0, true, ""}, {h1, true, ""}, {h2, false, "precondition"}} {
		st, _ := c.TxStatus(ctx, tc.h)
		if st.State != chain.TxIncluded || st.Success != tc.success || st.Reason != tc.reason {
			t.Fatalf("status %+v, want success=%v reason=%q", st, tc.success, tc.reason)
		}
	}
	out, err := c.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"z1"}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("state %s", out)
	c.Close()
	c2, err := New(Config{Clock: clk, DataDir: c.cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := c2.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"z1"}`))
	if string(out) != string(out2) {
		t.Fatalf("after restart %s, want %s", out2, out)
	}
	if _, err := c2.SetFaults(ctx, FaultUpdate{Reorg: ptr(uint64(1))}); err != nil {
		t.Fatal(err)
	}
	st, _ := c2.TxStatus(ctx, h1)
	if st.State != chain.TxPending {
		t.Fatalf("after reorg %+v", st)
	}
}

func ptr[T any](v T) *T { return &v }

// Two chains never share a data directory: the second fails at once.
func TestDataDirIsLocked(t *testing.T) {
	dir := t.TempDir()
	a, err := New(Config{DataDir: dir, Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{DataDir: dir, Clock: clock.NewVirtual(clock.Epoch)}); !errors.Is(err, fslock.ErrLocked) {
		t.Fatalf("second chain on the same dir: %v, want ErrLocked", err)
	}
	a.Close()
	b, err := New(Config{DataDir: dir, Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	b.Close()
}
