// Command apidoc writes the node's API documents into apispec: run it
// from the repository's root after changing a route or a wire type,
//
//	go run ./internal/apidoc/cmd/apidoc
//
// and commit apispec/openapi.json; internal/apidoc's tests fail while it
// is stale.
package main

import (
	"fmt"
	"os"

	"github.com/ordolabs/ordo/internal/apidoc/gen"
)

func main() {
	doc, err := gen.OpenAPI()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("apispec/openapi.json", doc, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
