package contracts_test

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

var libraryABI = contracts.NewLibrary()

// withLibrary deploys Library, trusting the harness's router.
func (h *harness) withLibrary() common.Address {
	h.t.Helper()
	return h.deploy(contracts.LibraryMetaData.Bin, libraryABI.PackConstructor(h.router))
}

// confirmations are the CallbackConfirmation events lib put in r, as
// "executionId=success".
func confirmations(t *testing.T, lib common.Address, r *types.Receipt) []string {
	t.Helper()
	var out []string
	id := libraryABI.GetABI().Events["CallbackConfirmation"].ID
	for _, l := range r.Logs {
		if l.Address != lib || l.Topics[0] != id {
			continue
		}
		e, err := libraryABI.UnpackCallbackConfirmationEvent(l)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s=%t", e.ExecutionId, e.Success))
	}
	return out
}

// libCall runs an eth_call of lib and fails the test on a revert.
func libCall(h *harness, lib common.Address, data []byte) []byte {
	h.t.Helper()
	out, rd, err := h.call(h.stranger, lib, data)
	if err != nil {
		h.t.Fatalf("call: %v (revert %x)", err, rd)
	}
	return out
}

func (h *harness) libCount(lib common.Address, method string) uint64 {
	h.t.Helper()
	n, err := libraryABI.UnpackCount(libCall(h, lib, libraryABI.PackCount(method)))
	if err != nil {
		h.t.Fatal(err)
	}
	return n.Uint64()
}

func (h *harness) libSetting(lib common.Address, method string) contracts.SettingOutput {
	h.t.Helper()
	s, err := libraryABI.UnpackSetting(libCall(h, lib, libraryABI.PackSetting(method)))
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) head() uint64 {
	h.t.Helper()
	n, err := h.cl.BlockNumber(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// TestLibraryHardFailures: act through the router fails (IntentFailed, the
// failure counted where it persists) below failUntil and while a countdown
// has failures left, which a hard failure never spends; an atomic batch
// with a failing act keeps no count of its other calls.
func TestLibraryHardFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	lib := h.withLibrary()
	act := func(m string) contracts.OrdoRouterCall {
		return contracts.OrdoRouterCall{Target: lib, Data: libraryABI.PackAct(m)}
	}
	until := h.head() + 4 // configure's block is head+1: act fails in the two after it
	if r := h.send(h.owner, &lib, libraryABI.PackConfigure("later", 0, until, ""), 200_000); r.Status != 1 {
		t.Fatal("configure later reverted")
	}
	if r := h.send(h.owner, &lib, libraryABI.PackConfigure("broken", 2, 0, "down"), 200_000); r.Status != 1 {
		t.Fatal("configure broken reverted")
	}
	for i, s := range []struct {
		calls  []contracts.OrdoRouterCall
		want   string
		reason []byte
	}{
		{[]contracts.OrdoRouterCall{act("later")}, "failed", errData(libraryABI.GetABI(), "NotReady", "later", until)},
		{[]contracts.OrdoRouterCall{act("ok"), act("broken")}, "failed", errData(libraryABI.GetABI(), "ConfiguredFailure", "broken", "down")},
		{[]contracts.OrdoRouterCall{act("ok"), act("later")}, "applied", nil},
		{[]contracts.OrdoRouterCall{act("broken")}, "failed", errData(libraryABI.GetABI(), "ConfiguredFailure", "broken", "down")},
	} {
		o := h.execute(h.node1, fmt.Sprintf("tx_%d", i), s.calls)
		if o.kind != s.want || !bytes.Equal(o.reason, s.reason) {
			t.Errorf("intent %d (block %d): %s %x, want %s %x", i, h.head(), o.kind, o.reason, s.want, s.reason)
		}
	}
	for m, want := range map[string]uint64{"ok": 1, "later": 1, "broken": 0} {
		if got := h.libCount(lib, m); got != want {
			t.Errorf("count(%s) = %d, want %d (a failed batch keeps no count)", m, got, want)
		}
	}
	if s := h.libSetting(lib, "broken"); s.FailTimes != 2 || s.FailuresLeft != 2 || s.FailReason != "down" {
		t.Errorf("setting(broken) = %+v: a hard failure spent the countdown", s)
	}
}

// TestLibrarySoftFailures: actConfirmed spends the countdown, counts and
// numbers its calls per execution, and confirms each as the processor's
// execution id; below failUntil it fails without spending the countdown.
func TestLibrarySoftFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	lib := h.withLibrary()
	until := h.head() + 3 // configure's block is head+1: the first actConfirmed fails NotReady
	if r := h.send(h.owner, &lib, libraryABI.PackConfigure("flaky", 2, until, ""), 200_000); r.Status != 1 {
		t.Fatal("configure reverted")
	}
	want := []string{"p/b/1/1=false", "p/b/1/2=false", "p/b/1/3=false", "p/b/1/4=true", "p/b/1/5=true"}
	for i, w := range want {
		calls := []contracts.OrdoRouterCall{{Target: lib, Data: libraryABI.PackActConfirmed("flaky", "p/b/1")}}
		r := h.send(h.node2, &h.router, routerABI.PackExecute(fmt.Sprintf("tx_soft_%d", i), calls), 2_000_000)
		if o := h.outcome(r); o.kind != "applied" {
			t.Fatalf("call %d: %s, want applied (a soft failure does not revert)", i, o.kind)
		}
		if got := confirmations(t, lib, r); len(got) != 1 || got[0] != w {
			t.Errorf("call %d: confirmations %v, want [%s]", i, got, w)
		}
	}
	if got := h.libCount(lib, "flaky"); got != 2 {
		t.Errorf("count(flaky) = %d, want 2", got)
	}
	if s := h.libSetting(lib, "flaky"); s.FailuresLeft != 0 || s.FailReason != "configured failure" {
		t.Errorf("setting(flaky) = %+v, want no failures left", s)
	}
	n, err := libraryABI.UnpackAttempts(libCall(h, lib, libraryABI.PackAttempts("p/b/1")))
	if err != nil || n.Uint64() != 5 {
		t.Errorf("attempts(p/b/1) = %v, %v; want 5", n, err)
	}
	r := h.send(h.stranger, &lib, libraryABI.PackConfirm("p/x/0/1", true), 100_000)
	if got := confirmations(t, lib, r); len(got) != 1 || got[0] != "p/x/0/1=true" {
		t.Errorf("confirm: %v", got)
	}
}

// TestLibraryGas logs each method's gas (the figures docs/evm-contracts.md
// gives), holds each under a budget about 5% above it, and checks that a
// call on a new key costs the same after many entries as before: no cost
// grows with the number of past entries.
func TestLibraryGas(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	lib := h.withLibrary()
	gas := func(from actor, data []byte) uint64 {
		r := h.send(from, &lib, data, 300_000)
		if r.Status != 1 {
			t.Fatalf("%x reverted", data[:4])
		}
		return r.GasUsed
	}
	measure := func() map[string]uint64 {
		k := fmt.Sprintf("%08d", h.head()) // fixed width: the same calldata cost every round
		return map[string]uint64{
			"configure (new method)":         gas(h.owner, libraryABI.PackConfigure("m"+k, 2, 0, "")),
			"configure (again)":              gas(h.owner, libraryABI.PackConfigure("m"+k, 2, 0, "")),
			"act (first success)":            gas(h.owner, libraryABI.PackAct("a"+k)),
			"act (later success)":            gas(h.owner, libraryABI.PackAct("a"+k)),
			"actConfirmed (soft failure)":    gas(h.owner, libraryABI.PackActConfirmed("m"+k, "p/b"+k+"/0")),
			"actConfirmed (next attempt)":    gas(h.owner, libraryABI.PackActConfirmed("m"+k, "p/b"+k+"/0")),
			"actConfirmed (success, new id)": gas(h.owner, libraryABI.PackActConfirmed("a"+k, "p/c"+k+"/0")),
			"confirm":                        gas(h.owner, libraryABI.PackConfirm("p/b"+k+"/0/1", true)),
		}
	}
	first := measure()
	for range 20 {
		measure()
	}
	last := measure()
	budgets := map[string]uint64{
		"configure (new method)": 53_700, "configure (again)": 35_800, "act (first success)": 52_000, "act (later success)": 34_000,
		"actConfirmed (soft failure)": 63_500, "actConfirmed (next attempt)": 45_500, "actConfirmed (success, new id)": 61_700, "confirm": 25_700,
	}
	names := slices.Sorted(maps.Keys(first))
	for _, name := range names {
		g := first[name]
		t.Logf("%-31s %d gas", name, g)
		if g > budgets[name] {
			t.Errorf("%s used %d gas, over its budget %d", name, g, budgets[name])
		}
		if last[name] != g {
			t.Errorf("%s: %d gas after 20 rounds of entries, %d before: its cost grows with past entries", name, last[name], g)
		}
	}
}
