package committee

import (
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// EVM puts every node of a committee on an EVM chain instead of
// Options.Chain (docs/distseq.md, on an EVM chain).
type EVM struct {
	// Section is the node config's evm: section, as `ordo evmdev --data
	// DIR` writes it to DIR/evm.yaml: it must name the PrivacyGroup
	// contract as evm.contracts.privacygroup.
	Section map[string]any
	// SenderKeys are the nodes' sender key files, node i's the i-th (one
	// each: two nodes never share an account's nonces). Each must be a
	// submitter of the section's router.
	SenderKeys []string
}

// ReadEVMSection reads a YAML file holding an evm: section (or only its
// fields).
func ReadEVMSection(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("committee: %w", err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("committee: %s: %w", path, err)
	}
	if s, ok := doc["evm"].(map[string]any); ok {
		return s, nil
	}
	return doc, nil
}

// check refuses an EVM option Init cannot write for nodes nodes.
func (e *EVM) check(nodes int) error {
	if _, ok := e.Section["urls"]; !ok {
		return fmt.Errorf("%w: the evm section has no urls", ErrInvalid)
	}
	cs, _ := e.Section["contracts"].(map[string]any)
	if _, ok := cs["privacygroup"]; !ok {
		return fmt.Errorf("%w: the evm section has no contracts.privacygroup (ordo evmdev deploys one)", ErrInvalid)
	}
	if len(e.SenderKeys) != nodes {
		return fmt.Errorf("%w: %d sender key files for %d nodes: give one per node", ErrInvalid, len(e.SenderKeys), nodes)
	}
	for i, k := range e.SenderKeys {
		abs, err := filepath.Abs(k)
		if err != nil {
			return fmt.Errorf("%w: sender key %s: %w", ErrInvalid, k, err)
		}
		e.SenderKeys[i] = abs
	}
	return nil
}

type fileSender struct {
	KeyFile string `yaml:"keyFile"`
}

// useEVM points member i's file config at the EVM chain.
func (e *EVM) useEVM(fc *fileConfig, i int) {
	fc.Chain, fc.DevSenders = "", 0
	fc.EVM = e.Section
	fc.Senders = []fileSender{{KeyFile: e.SenderKeys[i]}}
}
