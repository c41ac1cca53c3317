package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExampleNames lists the example tools, sorted.
func ExampleNames() []string { return []string{"arith", "textstats"} }

// Example returns the example tool called name (see ExampleNames).
func Example(name string) (Tool, error) {
	switch name {
	case "arith":
		return Arith{}, nil
	case "textstats":
		return TextStats{}, nil
	}
	return nil, fmt.Errorf("no example tool %q (want one of %s)", name, strings.Join(ExampleNames(), ", "))
}

// TextStats is an example tool: the statistics of a text.
//
// Input {"text": string} (at most 65536 characters); output {"words",
// "chars", "lines", "topWord"}: words are the runs of non-space characters;
// chars counts runes; lines counts lines, a last line without a newline
// included ("" has 0 lines, "a\nb" and "a\nb\n" have 2); topWord is the
// most frequent word, compared in lower case with leading and trailing
// punctuation removed, the alphabetically first of those tied, and "" when
// there is none.
type TextStats struct{}

// MaxTextChars bounds TextStats' input text, in characters (runes), as its
// input schema's maxLength does.
const MaxTextChars = 65536

// Meta describes textstats.
func (TextStats) Meta() Meta {
	return Meta{
		Name:        "textstats",
		Description: "Counts the words, characters and lines of a text and finds its most frequent word.",
		Version:     "1.0.0",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":65536}},` +
			`"required":["text"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"words":{"type":"integer","minimum":0},` +
			`"chars":{"type":"integer","minimum":0},"lines":{"type":"integer","minimum":0},"topWord":{"type":"string"}},` +
			`"required":["words","chars","lines","topWord"],"additionalProperties":false}`),
	}
}

// TextStatsOutput is textstats' output.
type TextStatsOutput struct {
	Words   int    `json:"words"`
	Chars   int    `json:"chars"`
	Lines   int    `json:"lines"`
	TopWord string `json:"topWord"`
}

// Invoke computes the statistics.
func (TextStats) Invoke(_ context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	if n := utf8.RuneCountInString(in.Text); n > MaxTextChars {
		return nil, fmt.Errorf("%w: text is %d characters, the limit is %d", ErrInvalidInput, n, MaxTextChars)
	}
	return json.Marshal(Stats(in.Text))
}

// Stats computes textstats' output for text.
func Stats(text string) TextStatsOutput {
	out := TextStatsOutput{Chars: utf8.RuneCountInString(text)}
	if text != "" {
		out.Lines = strings.Count(text, "\n")
		if !strings.HasSuffix(text, "\n") {
			out.Lines++
		}
	}
	counts := map[string]int{}
	for _, w := range strings.Fields(text) {
		out.Words++
		w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }))
		if w != "" {
			counts[w]++
		}
	}
	best := 0
	for w, n := range counts {
		if n > best || (n == best && w < out.TopWord) {
			best, out.TopWord = n, w
		}
	}
	return out
}

// Arith is an example tool: one arithmetic operation on two numbers.
//
// Input {"op": "add"|"sub"|"mul"|"div", "a": number, "b": number}; output
// {"result": number}. Numbers are float64: integers beyond 2^53 lose
// precision. A division by zero, or a result that is not a finite number,
// refuses the input (422 invalid_input).
type Arith struct{}

// Meta describes arith.
func (Arith) Meta() Meta {
	return Meta{
		Name:        "arith",
		Description: "Adds, subtracts, multiplies or divides two numbers.",
		Version:     "1.0.0",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"op":{"enum":["add","sub","mul","div"]},` +
			`"a":{"type":"number"},"b":{"type":"number"}},"required":["op","a","b"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"result":{"type":"number"}},` +
			`"required":["result"],"additionalProperties":false}`),
	}
}

// ArithInput is arith's input.
type ArithInput struct {
	Op string  `json:"op"`
	A  float64 `json:"a"`
	B  float64 `json:"b"`
}

// ArithOutput is arith's output.
type ArithOutput struct {
	Result float64 `json:"result"`
}

// arithOps are arith's operations.
var arithOps = []string{"add", "sub", "mul", "div"}

// Invoke applies the operation.
func (Arith) Invoke(_ context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in ArithInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	r, err := Apply(in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ArithOutput{Result: r})
}

// Apply computes arith's result; a refused input wraps ErrInvalidInput.
func Apply(in ArithInput) (float64, error) {
	var r float64
	switch in.Op {
	case "add":
		r = in.A + in.B
	case "sub":
		r = in.A - in.B
	case "mul":
		r = in.A * in.B
	case "div":
		if in.B == 0 {
			return 0, fmt.Errorf("%w: division by zero", ErrInvalidInput)
		}
		r = in.A / in.B
	default:
		return 0, fmt.Errorf("%w: op %q is not one of %s", ErrInvalidInput, in.Op, strings.Join(arithOps, ", "))
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return 0, fmt.Errorf("%w: the result of %s(%g, %g) is not a finite number", ErrInvalidInput, in.Op, in.A, in.B)
	}
	return r, nil
}
