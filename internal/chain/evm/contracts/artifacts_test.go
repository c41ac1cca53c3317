package contracts_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// bindings are the abigen bindings, by contract: gen.sh writes one per
// artifact.
var bindings = map[string]*bind.MetaData{
	"Library":      &contracts.LibraryMetaData,
	"NodeRegistry": &contracts.NodeRegistryMetaData,
	"OrdoRouter":   &contracts.OrdoRouterMetaData,
	"ReplicaSets":  &contracts.ReplicaSetsMetaData,
	"ToolRegistry": &contracts.ToolRegistryMetaData,
	"Voting":       &contracts.VotingMetaData,
	"Workflow":     &contracts.WorkflowMetaData,
	"PrivacyGroup": &contracts.PrivacyGroupMetaData,
}

const regenerate = "run scripts/contracts/gen.sh and commit what it writes"

// repoRoot is the directory of the module's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: %s", err, regenerate)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestArtifactsMatchSources fails when a committed artifact no longer
// matches what it was built from: a source or toolchain file whose sha256
// changed, a contracts/*.sol no artifact was built from, or a binding whose
// ABI or bytecode differs from its artifact's. It needs no npm.
func TestArtifactsMatchSources(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	names := contracts.ArtifactNames()
	if len(names) == 0 {
		t.Fatal("no artifacts embedded")
	}
	covered := map[string]bool{}
	for _, name := range names {
		a, err := contracts.LoadArtifact(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.ContractName != name || a.EVMVersion == "" || a.Compiler == "" || len(a.Sources) == 0 || len(a.Toolchain) == 0 {
			t.Errorf("%s: incomplete artifact (name %q, evm %q, compiler %q, %d sources, %d toolchain files)",
				name, a.ContractName, a.EVMVersion, a.Compiler, len(a.Sources), len(a.Toolchain))
		}
		for _, files := range []map[string]string{a.Sources, a.Toolchain} {
			for f, recorded := range files {
				covered[f] = true
				if got := fileSHA256(t, filepath.Join(root, filepath.FromSlash(f))); got != recorded {
					t.Errorf("%s: %s has sha256 %s, the artifact was built from %s: %s", name, f, got, recorded, regenerate)
				}
			}
		}
		meta, ok := bindings[name]
		if !ok {
			t.Errorf("%s: no binding: %s", name, regenerate)
			continue
		}
		if !bytes.Equal(common.FromHex(meta.Bin), common.FromHex(a.Bytecode)) {
			t.Errorf("%s: the binding's bytecode differs from the artifact's: %s", name, regenerate)
		}
		bindABI, err := meta.ParseABI()
		if err != nil {
			t.Fatalf("%s binding ABI: %v", name, err)
		}
		artABI, err := abi.JSON(bytes.NewReader(a.ABI))
		if err != nil {
			t.Fatalf("%s artifact ABI: %v", name, err)
		}
		// abigen drops the spaces of internalType ("structOrdoRouter.Call"), so
		// the ABIs are compared by what they declare, not byte for byte.
		if got, want := abiDecl(*bindABI), abiDecl(artABI); !slices.Equal(got, want) {
			t.Errorf("%s: the binding's ABI differs from the artifact's:\n%s\nvs\n%s\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"), regenerate)
		}
	}
	for name := range bindings {
		if !slices.Contains(names, name) {
			t.Errorf("binding %s has no artifact: %s", name, regenerate)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "contracts"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sol") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if !covered[filepath.ToSlash(rel)] {
			t.Errorf("%s is in no artifact: %s", rel, regenerate)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// abiDecl lists what an ABI declares, one line each, sorted.
func abiDecl(a abi.ABI) []string {
	out := []string{"constructor " + a.Constructor.String()}
	for _, m := range a.Methods {
		out = append(out, m.String())
	}
	for _, e := range a.Events {
		out = append(out, e.String())
	}
	for _, e := range a.Errors {
		out = append(out, e.String())
	}
	slices.Sort(out)
	return out
}

// TestNoDelegatecall: neither the router nor a target has a DELEGATECALL
// anywhere in its runtime code, so none offers the self-delegatecall
// multicall that lets a caller forge an ERC-2771 sender.
func TestNoDelegatecall(t *testing.T) {
	t.Parallel()
	for _, name := range contracts.ArtifactNames() {
		a, err := contracts.LoadArtifact(name)
		if err != nil {
			t.Fatal(err)
		}
		code := common.FromHex(a.DeployedBytecode)
		if len(code) < 2 {
			t.Fatalf("%s: no runtime code", name)
		}
		// solc ends the code with its CBOR metadata, whose length is the last
		// two bytes: data, not instructions.
		meta := int(code[len(code)-2])<<8 | int(code[len(code)-1])
		if meta+2 > len(code) {
			t.Fatalf("%s: metadata length %d exceeds the code", name, meta)
		}
		code = code[:len(code)-meta-2]
		const push1, push32, delegatecall = 0x60, 0x7f, 0xf4
		for pc := 0; pc < len(code); pc++ {
			switch op := code[pc]; {
			case op == delegatecall:
				t.Errorf("%s: DELEGATECALL at pc %d", name, pc)
			case op >= push1 && op <= push32:
				pc += int(op - push1 + 1)
			}
		}
	}
}
