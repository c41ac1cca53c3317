package main

import (
	"fmt"
	"os"

	"github.com/ordolabs/ordo/internal/apidoc/gen"
)

func main() {
	for file, build := range map[string]func() ([]byte, error){"apispec/openapi.json": gen.OpenAPI, "apispec/openrpc.json": gen.OpenRPC} {
		doc, err := build()
		if err == nil {
			err = os.WriteFile(file, doc, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
