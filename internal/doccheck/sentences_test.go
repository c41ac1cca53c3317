package doccheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDocSentences fails on a sentence of more than MaxSentenceWords words
// in README.md or docs/**/*.md, outside code blocks, tables and headings.
func TestDocSentences(t *testing.T) {
	t.Parallel()
	pages, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			long, err := LongSentences(root, page, MaxSentenceWords)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range long {
				t.Error(l)
			}
		})
	}
}

func TestSentences(t *testing.T) {
	t.Parallel()
	type s struct{ line, words int }
	tests := []struct {
		name string
		src  string
		want []s
	}{
		{"two sentences", "One. Two words here.", []s{{1, 1}, {1, 3}}},
		{"wrapped", "A sentence\nthat wraps\nover lines.", []s{{1, 6}}},
		{"starts mid-line", "First one. Second\nline.\nThird.", []s{{1, 2}, {1, 2}, {3, 1}}},
		{"question and bang", "Why? Because! Done", []s{{1, 1}, {1, 1}, {1, 1}}},
		{"closing marks", `He said "stop." Then (went.) on`, []s{{1, 3}, {1, 2}, {1, 1}}},
		{"decimal and path", "It took 1.5 s in docs/a.md here.", []s{{1, 7}}},
		{"code span one word", "Run `go test ./... -run X. Y` now.", []s{{1, 3}}},
		{"code span over lines", "Run `go\ntest ./...` now.", []s{{1, 3}}},
		{"link target one word", "See [the page](a.md#x \"a title\") now.", []s{{1, 5}}},
		{"emphasis", "**Bold.** Then *it* goes.", []s{{1, 1}, {1, 3}}},
		{"dash and arrow", "a — b → c.", []s{{1, 3}}},
		{"fenced block", "Before.\n```\nnot. counted here\n```\nAfter.", []s{{1, 1}, {5, 1}}},
		{"indented block", "Text.\n\n    not counted. at all\n\nMore.", []s{{1, 1}, {5, 1}}},
		{"heading and table", "# A title of words\n| a b | c |\n| --- | --- |\nText.", []s{{4, 1}}},
		{"html", "<!-- a note. here -->\n<details>\nText.", []s{{3, 1}}},
		{"paragraphs", "one two\n\nthree", []s{{1, 2}, {3, 1}}},
		{"list items", "- one two\n- three\n  four.\n1. five", []s{{1, 2}, {2, 2}, {4, 1}}},
		{"block quote", "> quoted\n> text. More\n\nafter", []s{{1, 2}, {2, 1}, {4, 1}}},
		{"reference definition", "[a]: https://example.com/x.y\nText.", []s{{2, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []s
			for _, x := range Sentences([]byte(tt.src)) {
				got = append(got, s{x.Line, x.Words})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sentences(%q) = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
}

func TestLongSentences(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	page := "# Title\n\n" + words(40) + ".\n\nShort one. Then " + words(40) + ".\n\n```\n" + words(60) + ".\n```\n"
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "p.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	long, err := LongSentences(dir, "docs/p.md", MaxSentenceWords)
	if err != nil {
		t.Fatal(err)
	}
	want := `docs/p.md:5: a sentence of 41 words (at most 40): "Then word word word word word word word word word word word …"`
	if len(long) != 1 || long[0] != want {
		t.Errorf("LongSentences = %q, want [%q]", long, want)
	}
	if _, err := LongSentences(dir, "docs/missing.md", MaxSentenceWords); err == nil {
		t.Error("LongSentences of a missing page: no error")
	}
}
