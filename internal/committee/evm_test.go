package committee

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordolabs/ordo/internal/node"
)

// TestInitOnEVM: with an evm section, every config names that chain and
// no devchain, sends from its own key file, and loads and validates.
func TestInitOnEVM(t *testing.T) {
	dir := t.TempDir()
	section := filepath.Join(dir, "evm.yaml")
	const pg = "0x00000000000000000000000000000000000000cc"
	if err := os.WriteFile(section, []byte(`evm:
  urls: [ws://127.0.0.1:8546, http://127.0.0.1:8545]
  chainId: 1337
  router: "0x00000000000000000000000000000000000000aa"
  contracts:
    privacygroup: {address: "`+pg+`", abi: PrivacyGroup}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ReadEVMSection(section)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{filepath.Join(dir, "dev1.key"), filepath.Join(dir, "dev2.key")}
	ms := initT(t, Options{Nodes: 2, Out: filepath.Join(dir, "c"), EVM: &EVM{Section: s, SenderKeys: keys}})
	for i, m := range ms {
		c, err := node.LoadConfig(m.Config)
		if err != nil {
			t.Fatal(err)
		}
		if c.Chain != "" || len(c.EVM.URLs) != 2 || c.EVM.ChainID != 1337 || c.EVM.Contracts["privacygroup"].Address != pg ||
			len(c.Senders) != 1 || c.Senders[0].KeyFile != keys[i] || c.DevSenders != 0 {
			t.Fatalf("node %d: chain %q evm %+v senders %+v devSenders %d", m.Index, c.Chain, c.EVM, c.Senders, c.DevSenders)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("node %d: %v", m.Index, err)
		}
	}
	for _, e := range []*EVM{
		{Section: s, SenderKeys: keys[:1]},
		{Section: map[string]any{"urls": []any{"http://x"}}, SenderKeys: keys},
	} {
		if _, err := Init(Options{Nodes: 2, Out: filepath.Join(t.TempDir(), "c"), Now: t0, EVM: e}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Init with %+v: %v, want ErrInvalid", e, err)
		}
	}
}
