package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

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
// the registry holds.
func CheckSchema(raw json.RawMessage, what string, data json.RawMessage) error {
	s, err := compileSchema(what, raw)
	if err != nil {
		return fmt.Errorf("the %s schema does not compile: %w", what, err)
	}
	return s.check(what, data)
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
