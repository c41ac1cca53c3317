package sequencer

import (
	"encoding/json"
	"testing"
)

// BenchmarkIntakeChecks measures intake's per-intent checks: the rules (name,
// depth, surrogates, duplicate keys) and a type's JSON Schema.
func BenchmarkIntakeChecks(b *testing.B) {
	s, _ := compileSchemas([]string{"A"}, nil, map[string]json.RawMessage{"A": json.RawMessage(`{"type":"object","properties":{"zkapp":{"type":"string","minLength":1,"maxLength":128}}}`)})
	r := IntakeRules{}.withDefaults()
	it := Intake{Queue: "claim-17", Type: "A", Data: json.RawMessage(`{"voter":"v123","choice":2,"zkapp":"claim-17"}`)}
	allowed := map[string]bool{"A": true}
	b.Run("rules", func(b *testing.B) {
		for b.Loop() {
			_ = r.check(it, allowed, []string{"A"})
		}
	})
	b.Run("schema", func(b *testing.B) {
		for b.Loop() {
			_ = s.check("A", it.Data)
		}
	})
}
