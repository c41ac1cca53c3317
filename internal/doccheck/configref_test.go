package doccheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigReferenceFresh fails when docs/configuration-reference.md is
// not what the config types' comments make.
func TestConfigReferenceFresh(t *testing.T) {
	t.Parallel()
	want, err := ConfigReference(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ConfigRefPath)))
	if err != nil {
		t.Fatalf("%v: make it with %s", err, ConfigRefCommand)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: the config types' comments changed. Run %s (from the repository's root) and commit the result", ConfigRefPath, ConfigRefCommand)
	}
}

// TestConfigSections checks fields the reference must hold, with their
// YAML keys and defaults.
func TestConfigSections(t *testing.T) {
	t.Parallel()
	sections, err := ConfigSections(root)
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]Field{}
	for _, s := range sections {
		for _, f := range s.Fields {
			if _, dup := fields[f.Key]; dup {
				t.Errorf("key %s listed twice", f.Key)
			}
			fields[f.Key] = f
		}
	}
	tests := []struct{ key, typ, def string }{
		{"listen", "string", "127.0.0.1:7070"},
		{"data", "string", "./ordo-data"},
		{"retryDelay", "duration", "5s"},
		{"maxRetries", "int", "5"},
		{"fees", "object", "the defaults of its fields (initial 1000, +10% and at least 100 per retry, at most 1000000)"},
		{"fees.initial", "int", "1000"},
		{"api.tls.certFile", "string", `"" (no TLS)`},
		{"api.intakeLimit.perSecond", "number", "0"},
		{"api.intakeLimit.principals", "map of string to objects", "none"},
		{"api.intakeLimit.principals.<key>.burst", "int", "PerSecond rounded up, at least 1"},
		{"senders", "list of objects", "none"},
		{"senders[].keyFile", "string", `""`},
		{"types.<key>.retryDelay", "duration", "the node's RetryDelay"},
		{"principals[].roles", "list of string", "none: the principal is known (Authenticated routes) and nothing more"},
		{"processor.backoffMin", "duration", "1s"},
		{"processor.backoffMax", "duration", "5m"},
		{"leader.workflow", "string", `"workflow"`},
		{"leader.registry", "string", `"registry"`},
		{"replication.syncPoll", "duration", "15s"},
		{"replication.syncTimeout", "duration", "5m"},
		{"replication.enabled", "bool", "false (a replica set of one: the node alone)"},
		{"distseq.registryEvery", "duration", "30s"},
		{"pipelinesAbsent", "", ""},
		{"sequencer.pipelines[].inFlight", "int", "required"},
		{"sequencer.pipelines[].prefix", "string", "required"},
		{"evm.contracts.<key>.abi", "string", "required"},
		{"store.leaseTTL", "duration", "10s"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			f, ok := fields[tt.key]
			if tt.typ == "" {
				if ok {
					t.Errorf("%s listed, want absent", tt.key)
				}
				return
			}
			if !ok {
				t.Fatalf("%s not listed", tt.key)
			}
			if f.Type != tt.typ || f.Default != tt.def {
				t.Errorf("%s: type %q default %q, want %q and %q", tt.key, f.Type, f.Default, tt.typ, tt.def)
			}
		})
	}
}

func TestDefaultOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ doc, want string }{
		{"Listen is the address. Defaults to 127.0.0.1:7070.", "127.0.0.1:7070"},
		{"Data is it. Defaults to ./ordo-data.", "./ordo-data"},
		{"X. Defaults to 8 when none, else 0. Given as 0 it means none.", "8 when none, else 0"},
		{"X. Defaults to 0: follow the chain (1 on a chain that never reorgs). A value of d.", "0: follow the chain (1 on a chain that never reorgs)"},
		{"Prefix selects. Required key, no default.", "required"},
		{"Address is the contract's address.", ""},
		{"Min and max. Default to 1s and 5m.", "1s and 5m"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := defaultOf(tt.doc); got != tt.want {
				t.Errorf("defaultOf(%q) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

// TestConfigRefCommand keeps the command the stale test names in step with
// the generate directive.
func TestConfigRefCommand(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), ConfigRefCommand) || !strings.Contains(string(b), "//go:generate go run ./cmd/configref") {
		t.Errorf("doc.go does not name %s and its go:generate directive", ConfigRefCommand)
	}
}
