package contracts_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

var registryABI = contracts.NewToolRegistry()

const schema = `{"type":"object"}`

// withRegistry deploys ToolRegistry, trusting the harness's router.
func (h *harness) withRegistry() common.Address {
	h.t.Helper()
	return h.deploy(contracts.ToolRegistryMetaData.Bin, registryABI.PackConstructor(h.router))
}

func (h *harness) toolOf(reg common.Address, name string) (contracts.ToolRegistryTool, bool) {
	h.t.Helper()
	out, rd, err := h.call(h.stranger, reg, registryABI.PackTool(name))
	if err != nil {
		if len(rd) < 4 || [4]byte(rd) != [4]byte(contracts.ToolRegistryNotFoundErrorID().Bytes()) {
			h.t.Fatalf("tool %s: %v, revert %x: want a definition or NotFound", name, err, rd)
		}
		return contracts.ToolRegistryTool{}, false
	}
	d, err := registryABI.UnpackTool(out)
	if err != nil {
		h.t.Fatal(err)
	}
	return d, true
}

// TestToolRegistry: a name registered by anyone, replaced and removed only
// by its registrant (also as the router forwards it), its version raised
// by every change and never repeated after a deregister, an event per
// change.
func TestToolRegistry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := h.withRegistry()
	register := func(url string) []byte { return registryABI.PackRegister("math.add", url, schema, `{"type":"number"}`) }

	r := h.mustSend(h.stranger, reg, register("http://tools.local/add"))
	if e, err := registryABI.UnpackToolRegisteredEvent(r.Logs[0]); err != nil || e.Tool != "math.add" || e.Url != "http://tools.local/add" || e.Version != 1 {
		t.Fatalf("ToolRegistered %+v, %v", e, err)
	}
	d, ok := h.toolOf(reg, "math.add")
	if !ok || d.Tool != "math.add" || d.Url != "http://tools.local/add" || d.InputSchema != schema || d.OutputSchema != `{"type":"number"}` || d.Owner != h.stranger.addr || d.Version != 1 {
		t.Fatalf("tool %+v", d)
	}
	if got := h.refusal(h.owner, reg, register("http://evil/")); got != "not_owner" {
		t.Fatalf("a register by another: %q, want not_owner", got)
	}
	if kind, why := h.routed(h.node1, "steal", reg, register("http://evil/")); kind != "failed" || why != "not_owner" {
		t.Fatalf("a register by another through the router: %s %q", kind, why)
	}
	h.mustSend(h.stranger, reg, register("https://tools.local/v2"))
	if d, _ := h.toolOf(reg, "math.add"); d.Url != "https://tools.local/v2" || d.Version != 2 || d.Owner != h.stranger.addr {
		t.Fatalf("tool after its replacement %+v", d)
	}
	if got := h.refusal(h.owner, reg, registryABI.PackDeregister("math.add")); got != "not_owner" {
		t.Fatalf("a deregister by another: %q, want not_owner", got)
	}
	r = h.mustSend(h.stranger, reg, registryABI.PackDeregister("math.add"))
	if e, err := registryABI.UnpackToolDeregisteredEvent(r.Logs[0]); err != nil || e.Tool != "math.add" || e.Version != 3 {
		t.Fatalf("ToolDeregistered %+v, %v", e, err)
	}
	if _, ok := h.toolOf(reg, "math.add"); ok {
		t.Fatal("a deregistered tool is still read")
	}
	if got := h.refusal(h.stranger, reg, registryABI.PackDeregister("math.add")); got != "no_such_tool" {
		t.Fatalf("a second deregister: %q, want no_such_tool", got)
	}
	// The name is free: node1 takes it through the router, at version 4.
	if kind, why := h.routed(h.node1, "take", reg, register("http://node1/")); kind != "applied" {
		t.Fatalf("node1's register through the router: %s %q", kind, why)
	}
	if d, _ := h.toolOf(reg, "math.add"); d.Owner != h.node1.addr || d.Version != 4 {
		t.Fatalf("tool taken again %+v: want node1's at version 4", d)
	}
	out, _, err := h.call(h.stranger, reg, registryABI.PackRegistered())
	if n, uerr := registryABI.UnpackRegistered(out); err != nil || uerr != nil || n.Uint64() != 1 {
		t.Fatalf("registered %v, %v, %v; want 1", n, err, uerr)
	}
}

// TestToolRegistryMalformed: devchain's sentences for a bad name, URL or
// schema.
func TestToolRegistryMalformed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := h.withRegistry()
	const (
		name = "registry: tool must be 1-64 characters of [a-z0-9_.-]"
		url  = "registry: url must be an http or https URL with a host, at most 2048 bytes"
		in   = "registry: inputSchema must be a JSON object of at most 16384 bytes"
		out  = "registry: outputSchema must be a JSON object of at most 16384 bytes"
	)
	big := "{" + strings.Repeat(" ", 16384) + "}"
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"upper case", registryABI.PackRegister("Add", "http://h/", schema, schema), name},
		{"empty name", registryABI.PackRegister("", "http://h/", schema, schema), name},
		{"long name", registryABI.PackRegister(strings.Repeat("a", 65), "http://h/", schema, schema), name},
		{"ftp", registryABI.PackRegister("t", "ftp://h/", schema, schema), url},
		{"no host", registryABI.PackRegister("t", "http://", schema, schema), url},
		{"empty host", registryABI.PackRegister("t", "http:///x", schema, schema), url},
		{"long url", registryABI.PackRegister("t", "http://h/"+strings.Repeat("p", 2040), schema, schema), url},
		{"array schema", registryABI.PackRegister("t", "http://h/", `[]`, schema), in},
		{"blank schema", registryABI.PackRegister("t", "http://h/", " \n", schema), in},
		{"big schema", registryABI.PackRegister("t", "http://h/", schema, big), out},
		{"bad name on deregister", registryABI.PackDeregister("T"), name},
	} {
		if got := h.refusal(h.stranger, reg, c.data); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	h.mustSend(h.stranger, reg, registryABI.PackRegister(strings.Repeat("a", 64), "https://h:8080", " \t{}", schema))
}

// TestToolRegistryGas logs each method's gas (docs/evm-contracts.md),
// holds it under a budget about 5% above, and checks no cost grows with
// the number of tools registered before.
func TestToolRegistryGas(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := h.withRegistry()
	gas := func(data []byte) uint64 { return h.mustSend(h.stranger, reg, data).GasUsed }
	measure := func() map[string]uint64 {
		k := fmt.Sprintf("%08d", h.head()) // fixed width: the same calldata cost every round
		add := func(url string) []byte {
			return registryABI.PackRegister("tool-"+k, url, `{"type":"object","required":["a","b"]}`, `{"type":"number"}`)
		}
		return map[string]uint64{
			"register (new name)":   gas(add("http://tools.local:8080/" + k)),
			"register (replace)":    gas(add("http://tools.local:8081/" + k)),
			"deregister":            gas(registryABI.PackDeregister("tool-" + k)),
			"register (again)":      gas(add("http://tools.local:8082/" + k)),
			"register ({} schemas)": gas(registryABI.PackRegister("keep-"+k, "http://k/", "{}", "{}")),
		}
	}
	measure() // the count of registered tools leaves zero once: a cost of the first tool only
	first := measure()
	for range 20 {
		measure()
	}
	last := measure()
	budgets := map[string]uint64{
		"register (new name)": 257_600, "register (replace)": 70_000, "deregister": 69_000,
		"register (again)": 239_600, "register ({} schemas)": 186_500,
	}
	for _, name := range slices.Sorted(maps.Keys(first)) {
		g := first[name]
		t.Logf("%-21s %d gas", name, g)
		if b := budgets[name]; g > b {
			t.Errorf("%s used %d gas, over its budget %d", name, g, b)
		}
		if last[name] != g {
			t.Errorf("%s: %d gas after 20 rounds of entries, %d before: its cost grows with past entries", name, last[name], g)
		}
	}
}
