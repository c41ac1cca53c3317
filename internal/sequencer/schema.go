package sequencer

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
)

// DataSchema is implemented by dispatchers that declare what their
// transactions' data must be, as a JSON Schema (draft 2020-12 unless the
// schema says otherwise). Intake checks every intent of the type against it
// and refuses one that fails (ErrInvalid, naming the field), so an intent
// that could never be built never enters a queue.
type DataSchema interface {
	DataSchema() json.RawMessage
}

// schemas are the compiled data schemas, by type.
type schemas map[string]*jsonschema.Schema

// compileSchemas compiles the schema of each allowed type: extra's (the
// configuration's) when it has one, else the dispatcher's when it declares
// one. A type with neither takes any JSON data.
func compileSchemas(types []string, dispatchers map[string]Dispatcher, extra map[string]json.RawMessage) (schemas, error) {
	out := schemas{}
	c := jsonschema.NewCompiler()
	for _, t := range types {
		raw, ok := extra[t]
		if !ok {
			if d, isSchema := dispatchers[t].(DataSchema); isSchema {
				raw, ok = d.DataSchema(), true
			}
		}
		if !ok {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("type %s: data schema: %w", t, err)
		}
		url := "ordo:/types/" + t + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("type %s: data schema: %w", t, err)
		}
		if out[t], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("type %s: data schema: %w", t, err)
		}
	}
	return out, nil
}

var schemaPrinter = message.NewPrinter(language.English)

// check validates data against typ's schema; a failure is ErrInvalid with
// the first failing field's location (data/...) and what was wrong there.
func (s schemas) check(typ string, data []byte) error {
	sch := s[typ]
	if sch == nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: data: %w", ErrInvalid, err)
	}
	err = sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	leaves := leafErrors(ve, nil)
	sort.SliceStable(leaves, func(i, j int) bool { return len(leaves[i].InstanceLocation) > len(leaves[j].InstanceLocation) })
	leaf := leaves[0]
	field := strings.Join(append([]string{"data"}, leaf.InstanceLocation...), "/")
	return fmt.Errorf("%w: %s does not match the %s schema: %s", ErrInvalid, Excerpt(field), typ, leaf.ErrorKind.LocalizedString(schemaPrinter))
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
