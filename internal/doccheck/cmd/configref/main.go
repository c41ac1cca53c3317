package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ordolabs/ordo/internal/doccheck"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	out := flag.String("out", "", "the file to write (default: ROOT/"+doccheck.ConfigRefPath+"; - for stdout)")
	flag.Parse()
	if err := run(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "configref:", err)
		os.Exit(1)
	}
}

// run writes the reference of the module at root to out.
func run(root, out string) error {
	b, err := doccheck.ConfigReference(root)
	if err != nil {
		return err
	}
	if out == "-" {
		_, err := os.Stdout.Write(b)
		return err
	}
	if out == "" {
		out = filepath.Join(root, filepath.FromSlash(doccheck.ConfigRefPath))
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("writing the reference: %w", err)
	}
	return nil
}
