package tool

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// schema is a compiled JSON Schema (draft 2020-12 unless it says otherwise).
type schema struct{ s *jsonschema.Schema }

// compileSchema compiles raw under a name used in its errors.
func compileSchema(name string, raw json.RawMessage) (*schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{}) // schemas come from a registry: never read a file or URL they name
	url := "ordo:/tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &schema{s: s}, nil
}

// CheckSchema validates data against the JSON Schema raw; a failure names
// the innermost failing location under what ("input/a") and what was wrong
// there. The leader checks inputs and outputs with it against the schemas
// the registry holds. Compiled schemas are kept (up to
// maxCachedSchemas, by the SHA-256 of raw), so checking many values against
// a few schemas compiles each once.
func CheckSchema(raw json.RawMessage, what string, data json.RawMessage) error {
	s, err := cachedSchema(raw)
	if err != nil {
		return fmt.Errorf("the %s schema does not compile: %w", what, err)
	}
	return s.check(what, data)
}

// maxCachedSchemas bounds CheckSchema's cache; a full cache is emptied.
const maxCachedSchemas = 256

var schemaCache = struct {
	sync.Mutex
	m map[[sha256.Size]byte]*schema
}{m: map[[sha256.Size]byte]*schema{}}

// cachedSchema returns raw compiled, from the cache when it is there.
func cachedSchema(raw json.RawMessage) (*schema, error) {
	key := sha256.Sum256(raw)
	schemaCache.Lock()
	s := schemaCache.m[key]
	schemaCache.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := compileSchema(hex.EncodeToString(key[:8]), raw)
	if err != nil {
		return nil, err
	}
	schemaCache.Lock()
	if len(schemaCache.m) >= maxCachedSchemas {
		clear(schemaCache.m)
	}
	schemaCache.m[key] = s
	schemaCache.Unlock()
	return s, nil
}

// noLoader refuses every external reference: a tool's schemas must be
// self-contained (the draft metaschemas, embedded in the library, still
// resolve).
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s: a tool's schema must be self-contained", httpjson.Excerpt(url))
}

var schemaPrinter = message.NewPrinter(language.English)

// check validates data; what names the root of its locations.
func (s *schema) check(what string, data json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s is not JSON: %w", what, err)
	}
	err = s.s.Validate(inst)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	leaves := leafErrors(ve, nil)
	sort.SliceStable(leaves, func(i, j int) bool { return len(leaves[i].InstanceLocation) > len(leaves[j].InstanceLocation) })
	leaf := leaves[0]
	at := httpjson.Excerpt(strings.Join(append([]string{what}, leaf.InstanceLocation...), "/"))
	return fmt.Errorf("%s does not match the %s schema: %s", at, what, leaf.ErrorKind.LocalizedString(schemaPrinter))
}

// leafErrors collects the innermost errors of a validation error tree.
func leafErrors(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leafErrors(c, out)
	}
	return out
}
