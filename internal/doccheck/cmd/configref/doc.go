// Command configref writes docs/configuration-reference.md, the node's
// configuration reference, from the comments of its config types
// (internal/doccheck.ConfigReference). Run it from the repository's root:
//
//	go run ./internal/doccheck/cmd/configref
//
// -root names another root; -out another file ("-" for stdout).
//
// Invariants: the reference holds every field of the config types with
// its YAML name and default; the same source writes the same bytes, so
// doccheck's test can fail when the committed file is stale.
package main
