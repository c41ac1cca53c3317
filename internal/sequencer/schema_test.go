package sequencer

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestSchemas: a type's data schema comes from the configuration first,
// then from its dispatcher; intake's check names the failing field; a bad
// schema fails at start.
func TestSchemas(t *testing.T) {
	obj := json.RawMessage(`{"type":"object","required":["voter"],"properties":{"voter":{"type":"string"},"n":{"type":"integer","minimum":1}}}`)
	s, err := compileSchemas([]string{"A", "B", "C"}, map[string]Dispatcher{"B": schemaDispatcher{s: obj}}, map[string]json.RawMessage{"A": obj})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		typ, data string
		want      string // "" for accepted, else a part of the error
	}{
		{"A", `{"voter":"v"}`, ""},
		{"A", `{"voter":"v","n":2}`, ""},
		{"A", `{}`, `"data" does not match the A schema: missing property 'voter'`},
		{"A", `{"voter":1}`, `"data/voter"`},
		{"A", `{"voter":"v","n":0}`, `"data/n"`},
		{"A", `[1]`, `want object`},
		{"B", `{"voter":"v"}`, ""},
		{"B", `{"n":1}`, "missing property"},
		{"C", `[1,"anything"]`, ""}, // no schema: any JSON
	}
	for _, tt := range tests {
		err := s.check(tt.typ, []byte(tt.data))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %s: %v", tt.typ, tt.data, err)
		case tt.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %s: %v, want ErrInvalid with %q", tt.typ, tt.data, err, tt.want)
		}
	}
	if _, err := compileSchemas([]string{"A"}, nil, map[string]json.RawMessage{"A": json.RawMessage(`{"type":"nope"}`)}); err == nil || !strings.Contains(err.Error(), "type A") {
		t.Fatalf("a bad schema compiled: %v", err)
	}
}

// schemaDispatcher declares a data schema and does nothing else.
type schemaDispatcher struct {
	Dispatcher
	s json.RawMessage
}

func (d schemaDispatcher) DataSchema() json.RawMessage { return d.s }
