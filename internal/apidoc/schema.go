package apidoc

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Schema is a JSON Schema (2020-12) as a JSON object.
type Schema = map[string]any

// mode is how a Go type is read: as a response (encoding/json writes
// every field not omitted, nil slices and maps as null) or as a request
// (the node decodes strictly: unknown fields refused, every field
// optional).
type mode uint8

const (
	response mode = iota
	request
)

// schemas turns Go types into JSON Schemas by reflection, the named
// struct types into components (#/components/schemas/NAME).
type schemas struct {
	// overrides are the schemas of types that encode themselves
	// (json.Marshaler, json.Unmarshaler).
	overrides map[reflect.Type]Schema
	// components are the named schemas, by component name.
	components map[string]Schema
	// names are the component names given, by type and mode.
	names map[key]string
	// taken are the types that hold each name, to tell a collision.
	taken map[string]key
	// err is the first type that cannot be described.
	err error
}

// key is a type read in a mode.
type key struct {
	t reflect.Type
	m mode
}

func newSchemas(overrides map[reflect.Type]Schema) *schemas {
	return &schemas{overrides: overrides, components: map[string]Schema{}, names: map[key]string{}, taken: map[string]key{}}
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	rawType         = reflect.TypeFor[json.RawMessage]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// of returns the schema of t read in mode m: a $ref for a named struct.
func (s *schemas) of(t reflect.Type, m mode) Schema {
	if o, ok := s.overrides[t]; ok {
		return clone(o)
	}
	switch t {
	case timeType:
		return Schema{"type": "string", "format": "date-time"}
	case rawType:
		return Schema{}
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if (m == response && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType))) ||
			(m == request && reflect.PointerTo(t).Implements(unmarshalerType)) {
			s.fail(fmt.Errorf("apidoc: %v encodes itself: give it an override", t))
			return Schema{}
		}
		if (m == response && t.Implements(textMarshaler)) || (m == request && reflect.PointerTo(t).Implements(textUnmarshaler)) {
			return Schema{"type": "string"}
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Schema{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Schema{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Interface:
		return Schema{}
	case reflect.Pointer:
		return nullable(s.of(t.Elem(), m))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(marshalerType) {
			return nullable(Schema{"type": "string", "contentEncoding": "base64"})
		}
		return nullable(Schema{"type": "array", "items": s.of(t.Elem(), m)})
	case reflect.Array:
		return Schema{"type": "array", "items": s.of(t.Elem(), m), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return nullable(Schema{"type": "object", "additionalProperties": s.of(t.Elem(), m)})
	case reflect.Struct:
		if t.Name() == "" {
			return s.object(t, m)
		}
		return Schema{"$ref": "#/components/schemas/" + s.component(t, m)}
	}
	s.fail(fmt.Errorf("apidoc: %v has no JSON form", t))
	return Schema{}
}

// component names t's schema in m, describing it on first use.
func (s *schemas) component(t reflect.Type, m mode) string {
	k := key{t, m}
	if n, ok := s.names[k]; ok {
		return n
	}
	name := t.Name()
	if m == request && !strings.HasSuffix(name, "Request") {
		name += "Request"
	}
	if other, ok := s.taken[name]; ok && other != k {
		pkg := t.PkgPath()[strings.LastIndexByte(t.PkgPath(), '/')+1:]
		name = strings.ToUpper(pkg[:1]) + pkg[1:] + name
	}
	s.names[k], s.taken[name] = name, k
	s.components[name] = Schema{} // a placeholder while it is described
	s.components[name] = s.object(t, m)
	return name
}

// field is a JSON member of a struct.
type field struct {
	name     string
	t        reflect.Type
	optional bool
	asString bool
	depth    int
}

// object is the schema of struct t: its members (embedded structs'
// promoted), none other allowed; in a response, those never omitted are
// required.
func (s *schemas) object(t reflect.Type, m mode) Schema {
	props := Schema{}
	var required []string
	for _, f := range fields(t, 0, false) {
		p := s.of(f.t, m)
		if f.asString {
			p = Schema{"type": "string"}
		}
		props[f.name] = p
		if m == response && !f.optional {
			required = append(required, f.name)
		}
	}
	out := Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		out["required"] = required
	}
	return out
}

// fields lists t's JSON members as encoding/json does: embedded structs
// without a name promoted, the shallowest of a name kept.
func fields(t reflect.Type, depth int, optional bool) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = merge(out, fields(et, depth+1, optional || ft.Kind() == reflect.Pointer))
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		o := strings.Split(opts, ",")
		out = merge(out, []field{{name: name, t: ft, depth: depth,
			optional: optional || slices.Contains(o, "omitempty") || slices.Contains(o, "omitzero"),
			asString: slices.Contains(o, "string")}})
	}
	return out
}

// merge adds fs to out, the shallower of two members of one name kept.
func merge(out, fs []field) []field {
	for _, f := range fs {
		i := slices.IndexFunc(out, func(g field) bool { return g.name == f.name })
		switch {
		case i < 0:
			out = append(out, f)
		case f.depth < out[i].depth:
			out[i] = f
		}
	}
	return out
}

// nullable lets a schema take null too.
func nullable(s Schema) Schema {
	if t, ok := s["type"].(string); ok && len(s) > 0 {
		s["type"] = []any{t, "null"}
		return s
	}
	if len(s) == 0 {
		return s
	}
	return Schema{"anyOf": []any{s, Schema{"type": "null"}}}
}

// clone copies a schema one level deep, so that nullable never changes
// an override.
func clone(s Schema) Schema {
	out := make(Schema, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

func (s *schemas) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}
