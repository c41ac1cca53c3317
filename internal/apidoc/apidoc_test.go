package apidoc_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/apidoc"
	"github.com/ordolabs/ordo/internal/apidoc/gen"
	"github.com/ordolabs/ordo/internal/ptx"
)

// TestOpenAPIFresh fails while apispec/openapi.json is not what the
// generator writes from today's routes and types.
func TestOpenAPIFresh(t *testing.T) {
	t.Parallel()
	doc, err := gen.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, apispec.OpenAPI) {
		t.Fatal("apispec/openapi.json is stale: run go run ./internal/apidoc/cmd/apidoc and commit it")
	}
}

// TestRoutesDocumented fails when a route the node's router registers
// (every engine on) is missing from the committed document, when the
// document names a route the router does not register, or when a route's
// rule and the document's differ.
func TestRoutesDocumented(t *testing.T) {
	t.Parallel()
	routes, _, err := gen.Routes()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Rule     string           `json:"x-ordo-rule"`
			Security []map[string]any `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(apispec.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			documented[strings.ToUpper(method)+" "+path] = op.Rule
		}
	}
	for _, rt := range routes {
		rule, ok := documented[rt.Pattern]
		switch {
		case !ok:
			t.Errorf("route %s is registered but not in apispec/openapi.json", rt)
		case rule != rt.Rule.String():
			t.Errorf("route %s: the document says its rule is %s", rt, rule)
		}
		delete(documented, rt.Pattern)
	}
	for pattern := range documented {
		t.Errorf("apispec/openapi.json documents %s, which the router does not register", pattern)
	}
	if len(routes) < 40 {
		t.Errorf("the router has %d routes: not every engine is on", len(routes))
	}
}

// TestOpenAPIValid validates the committed document against the OpenAPI
// 3.1 meta-schema (testdata, JSON Schema 2020-12).
func TestOpenAPIValid(t *testing.T) {
	t.Parallel()
	c := jsonschema.NewCompiler()
	meta, err := os.ReadFile("testdata/oas-3.1-schema-2022-10-07.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := jsonschema.UnmarshalJSON(bytes.NewReader(meta))
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://spec.openapis.org/oas/3.1/schema/2022-10-07"
	if err := c.AddResource(url, m); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		doc   []byte
		valid bool
	}{
		{"committed", apispec.OpenAPI, true},
		{"no info", []byte(`{"openapi":"3.1.0","paths":{}}`), false},
		{"bad parameter", []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"parameters":[{"name":"x","in":"nowhere"}],"responses":{"200":{"description":"ok"}}}}}}`), false},
	} {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); (err == nil) != tc.valid {
			t.Errorf("%s: valid %v, want %v: %v", tc.name, err == nil, tc.valid, err)
		}
	}
	var d struct {
		Exempt []string `json:"x-ordo-exempt"`
	}
	if err := json.Unmarshal(apispec.OpenAPI, &d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GET /metrics", "GET /v1/blocks/subscribe", "POST /rpc"} {
		if !slices.ContainsFunc(d.Exempt, func(e string) bool { return strings.HasPrefix(e, want+":") }) {
			t.Errorf("x-ordo-exempt lacks %s: %q", want, d.Exempt)
		}
	}
}

// TestOpenRPCFresh fails while apispec/openrpc.json is not what the
// generator writes from today's methods and types.
func TestOpenRPCFresh(t *testing.T) {
	t.Parallel()
	doc, err := gen.OpenRPC()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, apispec.OpenRPC) {
		t.Fatal("apispec/openrpc.json is stale: run go run ./internal/apidoc/cmd/apidoc and commit it")
	}
}

// TestRPCMethodsDocumented fails when a method the handler serves is
// missing from the committed OpenRPC document or a documented one is not
// served, and checks the builder refuses either.
func TestRPCMethodsDocumented(t *testing.T) {
	t.Parallel()
	var doc struct {
		OpenRPC string `json:"openrpc"`
		Methods []struct {
			Name   string `json:"name"`
			Params []any  `json:"params"`
			Result any    `json:"result"`
			Errors []any  `json:"errors"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(apispec.OpenRPC, &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range doc.Methods {
		names = append(names, m.Name)
		if len(m.Params) != 1 || m.Result == nil || len(m.Errors) == 0 {
			t.Errorf("%s: params %v, result %v, errors %v: want one param, a result and errors", m.Name, m.Params, m.Result, m.Errors)
		}
	}
	if !strings.HasPrefix(doc.OpenRPC, "1.") || !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(ptx.Methods))) {
		t.Errorf("openrpc %q documents %q; the handler serves %q", doc.OpenRPC, names, ptx.Methods)
	}
	for _, tc := range []struct {
		name   string
		served []string
	}{
		{"a method served, not described", append(slices.Clone(ptx.Methods), "ptx_new")},
		{"a method described, not served", ptx.Methods[1:]},
	} {
		if _, err := apidoc.BuildOpenRPC(tc.served, apidoc.RPCMethods); err == nil {
			t.Errorf("%s: BuildOpenRPC succeeded", tc.name)
		}
	}
}

// TestOperationIDsUnique: clients generated from the document (the
// TypeScript SDK) name a method per operationId, so no two may share one.
func TestOperationIDsUnique(t *testing.T) {
	t.Parallel()
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(apispec.OpenAPI, &d); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for path, ops := range d.Paths {
		for method, op := range ops {
			if op.OperationID == "" {
				continue
			}
			if other, dup := seen[op.OperationID]; dup {
				t.Errorf("operationId %s: %s %s and %s", op.OperationID, method, path, other)
			}
			seen[op.OperationID] = method + " " + path
		}
	}
	if len(seen) < 40 {
		t.Fatalf("only %d operations read", len(seen))
	}
}
