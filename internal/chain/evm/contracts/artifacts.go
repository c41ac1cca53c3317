package contracts

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.json
var artifactFS embed.FS

// ErrNoArtifact is returned by LoadArtifact for a contract this package has no
// artifact of.
var ErrNoArtifact = errors.New("no such contract artifact")

// Artifact is one compiled contract, as scripts/contracts/gen.sh wrote it.
type Artifact struct {
	// ContractName is the contract's Solidity name (OrdoRouter).
	ContractName string `json:"contractName"`
	// SourceName is the file that defines it, from the repository's root.
	SourceName string `json:"sourceName"`
	// Compiler is the compiler and its version (solc-js 0.8.37+commit...).
	Compiler string `json:"compiler"`
	// EVMVersion is the fork the bytecode was compiled for (cancun).
	EVMVersion string `json:"evmVersion"`
	// Optimizer is the solc optimizer's setting.
	Optimizer struct {
		Enabled bool `json:"enabled"`
		Runs    int  `json:"runs"`
	} `json:"optimizer"`
	// Sources maps each source file the contract was compiled from to its
	// sha256 (hex) at that time.
	Sources map[string]string `json:"sources"`
	// Toolchain maps the build's own files (compile.js, gen.sh, the npm lock
	// file) to their sha256 (hex) at that time.
	Toolchain map[string]string `json:"toolchain"`
	// ABI is the contract's JSON ABI.
	ABI json.RawMessage `json:"abi"`
	// Bytecode is the creation code, 0x-prefixed hex.
	Bytecode string `json:"bytecode"`
	// DeployedBytecode is the runtime code, 0x-prefixed hex.
	DeployedBytecode string `json:"deployedBytecode"`
}

// ArtifactNames lists the contracts this package has artifacts of, sorted.
func ArtifactNames() []string {
	files, err := fs.Glob(artifactFS, "*.json")
	if err != nil { // only for a malformed pattern
		panic(err)
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".json"))
	}
	sort.Strings(names)
	return names
}

// LoadArtifact returns the artifact of the contract name (OrdoRouter, Voting).
func LoadArtifact(name string) (Artifact, error) {
	b, err := artifactFS.ReadFile(name + ".json")
	if err != nil {
		return Artifact{}, fmt.Errorf("%w: %s", ErrNoArtifact, name)
	}
	var a Artifact
	if err := json.Unmarshal(b, &a); err != nil {
		return Artifact{}, fmt.Errorf("artifact %s: %w", name, err)
	}
	return a, nil
}
