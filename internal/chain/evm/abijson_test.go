package evm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/ordolabs/ordo/internal/chain"
)

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"castVote": "cast_vote", "createClaimVotingAccount": "create_claim_voting_account",
		"getURL": "get_url", "URLFor": "url_for", "owner": "owner", "balanceOf2": "balance_of2", "x": "x",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

const testABI = `[{"type":"function","name":"doIt","stateMutability":"nonpayable","inputs":[
 {"name":"_to","type":"address"},{"name":"amount","type":"uint256"},{"name":"small","type":"int8"},
 {"name":"tag","type":"bytes32"},{"name":"blob","type":"bytes"},{"name":"flags","type":"bool[2]"},
 {"name":"items","type":"tuple[]","components":[{"name":"who","type":"address"},{"name":"n","type":"uint64"}]}],
 "outputs":[]}]`

// TestArgsRoundTrip packs JSON args by the ABI and decodes them back to
// the same canonical JSON.
func TestArgsRoundTrip(t *testing.T) {
	t.Parallel()
	a, err := abi.JSON(strings.NewReader(testABI))
	if err != nil {
		t.Fatal(err)
	}
	m := a.Methods["doIt"]
	in := `{"amount":"340282366920938463463374607431768211456","blob":"0x0102","flags":[true,false],` +
		`"items":[{"n":"7","who":"0x00000000000000000000000000000000000000aa"}],"small":"-128",` +
		`"tag":"0x` + strings.Repeat("ab", 32) + `","to":"0x00000000000000000000000000000000000000bb"}`
	enc, err := packArgs(m.Inputs, json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	vals, err := m.Inputs.Unpack(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(argsJSON(m.Inputs, vals)); got != in {
		t.Errorf("round trip:\n got %s\nwant %s", got, in)
	}
	// JSON integers and the ABI's own name (_to) are accepted too.
	alt := strings.Replace(strings.Replace(in, `"small":"-128"`, `"small":-128`, 1), `"to":`, `"_to":`, 1)
	if enc2, err := packArgs(m.Inputs, json.RawMessage(alt)); err != nil || string(enc2) != string(enc) {
		t.Errorf("JSON integer and _to: %v", err)
	}
	for _, tc := range []struct{ name, from, to string }{
		{"int8 out of range", `"small":"-128"`, `"small":"128"`},
		{"missing", `"small":"-128",`, ``},
		{"unknown key", `"small":"-128"`, `"small":"-128","extra":1`},
		{"bytes32 too short", `"tag":"0x` + strings.Repeat("ab", 32) + `"`, `"tag":"0xab"`},
		{"address without 0x", `"to":"0x00000000000000000000000000000000000000bb"`, `"to":"00000000000000000000000000000000000000bb"`},
		{"fixed array length", `[true,false]`, `[true]`},
		{"fraction", `"n":"7"`, `"n":7.5`},
	} {
		bad := strings.Replace(in, tc.from, tc.to, 1)
		if bad == in {
			t.Fatalf("%s: the replacement did not apply", tc.name)
		}
		if _, err := packArgs(m.Inputs, json.RawMessage(bad)); !errors.Is(err, chain.ErrInvalidTx) {
			t.Errorf("%s: %v, want ErrInvalidTx", tc.name, err)
		}
	}
}
