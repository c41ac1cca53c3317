package doccheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// TestDocLinks checks every relative link, and its anchor, in README.md
// and docs/**/*.md.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	pages, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 2 {
		t.Fatalf("found %d pages: want README.md and docs/", len(pages))
	}
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			broken, err := CheckPage(root, page)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range broken {
				t.Error(b)
			}
		})
	}
}

func TestLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []Link
	}{
		{"inline", "see [a](a.md) and [b](docs/b.md#x).", []Link{{1, "a.md"}, {1, "docs/b.md#x"}}},
		{"image and title", `![i](img.png "t")`, []Link{{1, "img.png"}}},
		{"reference", "[a]: ../x.md", []Link{{1, "../x.md"}}},
		{"anchor only", "[s](#section)", []Link{{1, "#section"}}},
		{"code span", "`[a](a.md)` and [b](b.md)", []Link{{1, "b.md"}}},
		{"fenced block", "```\n[a](a.md)\n```\n[b](b.md)", []Link{{4, "b.md"}}},
		{"indented block", "text\n\n    [a](a.md)\n\n[b](b.md)", []Link{{5, "b.md"}}},
		{"list continuation", "- item\n    [a](a.md)", []Link{{2, "a.md"}}},
		{"url", "[u](https://example.com)", []Link{{1, "https://example.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Links([]byte(tt.src)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Links(%q) = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct{ heading, want string }{
		{"Running a node", "running-a-node"},
		{"The sequencer (seed 000)", "the-sequencer-seed-000"},
		{"`api.tls`", "apitls"},
		{"Health: what /healthz answers", "health-what-healthz-answers"},
		{"Logs, health, metrics", "logs-health-metrics"},
		{"[Security](security.md) and tokens", "security-and-tokens"},
		{"snake_case and-hyphens", "snake_case-and-hyphens"},
	}
	for _, tt := range tests {
		t.Run(tt.heading, func(t *testing.T) {
			t.Parallel()
			if got := Slug(tt.heading); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.heading, got, tt.want)
			}
		})
	}
}

func TestAnchors(t *testing.T) {
	t.Parallel()
	src := "# Title\n## Part\n```\n## Not a heading\n```\n## Part\n### Part ##\n"
	got := Anchors([]byte(src))
	want := map[string]bool{"title": true, "part": true, "part-1": true, "part-2": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Anchors = %v, want %v", got, want)
	}
}

func TestCheckPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/a.md", "# A\n## Part one\n")
	write("code/x.go", "package x\n")
	tests := []struct {
		name, body string
		broken     string // a part of the one broken link's sentence; "" for none
	}{
		{"file", "[a](a.md)", ""},
		{"anchor", "[a](a.md#part-one)", ""},
		{"own anchor", "# Self\n[s](#self)", ""},
		{"directory", "[c](../code/)", ""},
		{"source file", "[x](../code/x.go)", ""},
		{"external", "[e](https://example.com/none.md)", ""},
		{"missing file", "[m](missing.md)", "no such file"},
		{"missing anchor", "[a](a.md#part-two)", "no heading with the anchor #part-two"},
		{"missing own anchor", "[s](#nowhere)", "no heading"},
		{"anchor on a source file", "[x](../code/x.go#L1)", "not a Markdown page"},
		{"outside", "[o](../../elsewhere.md)", "outside the repository"},
		{"absolute", "[o](/docs/a.md)", "absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := "docs/" + strings.ReplaceAll(tt.name, " ", "-") + ".md"
			write(name, tt.body)
			broken, err := CheckPage(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.broken == "" && len(broken) > 0:
				t.Errorf("broken = %q, want none", broken)
			case tt.broken != "" && (len(broken) != 1 || !strings.Contains(broken[0], tt.broken)):
				t.Errorf("broken = %q, want one saying %q", broken, tt.broken)
			}
		})
	}
}
