package httpjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// DecodeStrict decodes b, exactly one JSON value, into v (a pointer),
// rejecting unknown fields, field names that differ from the documented ones
// only in case (encoding/json would accept them), duplicate fields and
// trailing data. Every number in b must fit a float64, those inside raw
// values (json.RawMessage) included. Any failure is a bad_json *Error.
//
// Only the keys of objects that decode into structs are checked; a JSON null
// where a value is expected leaves it as it is, as encoding/json does.
func DecodeStrict(b []byte, v any) error {
	return decodeStrict(b, v, false)
}

// DecodeStrictRaw is DecodeStrict for bodies that carry JSON the server
// keeps as it is: a number inside a raw value (json.RawMessage) is taken as
// written, whatever its size, rather than required to fit a float64.
func DecodeStrictRaw(b []byte, v any) error {
	return decodeStrict(b, v, true)
}

func decodeStrict(b []byte, v any, rawNumbers bool) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return Errorf(CodeBadJSON, "request body is empty; expected a JSON object")
		}
		return Errorf(CodeBadJSON, "request body is not valid JSON of the expected shape: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Errorf(CodeBadJSON, "request body has data after the JSON value")
	}
	keys := json.NewDecoder(bytes.NewReader(b))
	if rawNumbers {
		keys.UseNumber() // Token then reads a number without converting it
	}
	if err := checkKeys(keys, reflect.TypeOf(v), ""); err != nil {
		return Errorf(CodeBadJSON, "request body: %w", err)
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// checkKeys reads one JSON value from dec and checks that each key of each
// object that decodes into a struct of t names one of its fields exactly,
// once.
func checkKeys(dec *json.Decoder, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	leaf := t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType)
	if leaf || tok != json.Delim('{') {
		return skipValue(dec, tok)
	}
	fields := jsonFields(t)
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		ft, ok := fields[key]
		if !ok {
			return fmt.Errorf("unknown field %q", path+key)
		}
		if seen[key] {
			return fmt.Errorf("duplicate field %q", path+key)
		}
		seen[key] = true
		if err := checkKeys(dec, ft, path+key+"."); err != nil {
			return err
		}
	}
	_, err = dec.Token() // '}'
	return err
}

// skipValue consumes the rest of the value that starts with tok.
func skipValue(dec *json.Decoder, tok json.Token) error {
	depth := 0
	for {
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = dec.Token(); err != nil {
			return err
		}
	}
}

// jsonFields maps the JSON names of t's exported fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
