package testkit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// GoldenJSON compares v, encoded as indented JSON (no HTML escaping, a
// final newline), with the committed file at path (slash-separated,
// relative to the test's package), after writing it there when update is
// set. It fails the test when the file is missing or differs, with rewrite:
// the command that writes it again. Test vectors that another language's
// tests check (the TypeScript SDK's) are kept this way.
func GoldenJSON(t testing.TB, path string, v any, update bool, rewrite string) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	file := filepath.FromSlash(path)
	if update {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (%s rewrites it)", err, rewrite)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("%s is stale: %s rewrites it", path, rewrite)
	}
}
