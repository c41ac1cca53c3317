package tool

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestStats(t *testing.T) {
	tests := []struct {
		text string
		want TextStatsOutput
	}{
		{"", TextStatsOutput{}},
		{"\n", TextStatsOutput{Chars: 1, Lines: 1}},
		{"a\nb", TextStatsOutput{Words: 2, Chars: 3, Lines: 2, TopWord: "a"}},
		{"a\nb\n", TextStatsOutput{Words: 2, Chars: 4, Lines: 2, TopWord: "a"}},
		{"The cat saw the dog. THE END", TextStatsOutput{Words: 7, Chars: 28, Lines: 1, TopWord: "the"}},
		{"b a b a", TextStatsOutput{Words: 4, Chars: 7, Lines: 1, TopWord: "a"}}, // a tie: alphabetically first
		{"— … —", TextStatsOutput{Words: 3, Chars: 5, Lines: 1}},                 // words without letters
		{"héllo Héllo wörld", TextStatsOutput{Words: 3, Chars: 17, Lines: 1, TopWord: "héllo"}},
		{"  x\t\ty  \r\n", TextStatsOutput{Words: 2, Chars: 10, Lines: 1, TopWord: "x"}},
	}
	for _, tc := range tests {
		if got := Stats(tc.text); got != tc.want {
			t.Errorf("Stats(%q) = %+v, want %+v", tc.text, got, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		in   ArithInput
		want float64
		err  bool
	}{
		{ArithInput{"add", 1, 2}, 3, false},
		{ArithInput{"sub", 1, 2}, -1, false},
		{ArithInput{"mul", -1.5, 2}, -3, false},
		{ArithInput{"div", 1, 8}, 0.125, false},
		{ArithInput{"div", 1, 0}, 0, true},
		{ArithInput{"div", 0, 0}, 0, true},
		{ArithInput{"mul", math.MaxFloat64, 2}, 0, true},
		{ArithInput{"mod", 1, 2}, 0, true},
	}
	for _, tc := range tests {
		got, err := Apply(tc.in)
		if tc.err {
			if !errors.Is(err, ErrInvalidInput) {
				t.Errorf("Apply(%+v) error %v, want ErrInvalidInput", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Apply(%+v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestExamples(t *testing.T) {
	for _, name := range ExampleNames() {
		tl, err := Example(name)
		if err != nil {
			t.Fatal(err)
		}
		m := tl.Meta()
		if m.Name != name {
			t.Errorf("Example(%q) is named %q", name, m.Name)
		}
		if _, err := NewServer(tl); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Example("nope"); err == nil || !strings.Contains(err.Error(), "arith, textstats") {
		t.Fatalf("Example(nope) = %v", err)
	}
	// The outputs match the tools' own output schemas.
	out, _ := TextStats{}.Invoke(t.Context(), json.RawMessage(`{"text":"x y"}`))
	if err := CheckSchema(TextStats{}.Meta().OutputSchema, "output", out); err != nil {
		t.Fatal(err)
	}
}
