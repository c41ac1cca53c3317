package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Link is a link found in a Markdown page.
type Link struct {
	// Line is the link's line in its page, from 1.
	Line int
	// Target is the link's destination as written: a path, a path and an
	// anchor, an anchor alone ("#section"), or a URL.
	Target string
}

var (
	// inlineLink matches [text](target) and ![alt](target), with an
	// optional title after the target.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink matches a reference definition: [label]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	// codeSpan matches an inline code span.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// heading matches an ATX heading.
	heading = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	// mdLink matches a link in heading text, to keep its text.
	mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// lines calls f with each line of src that is not in a fenced or indented
// code block, and its number from 1.
func lines(src []byte, f func(n int, line string)) {
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	fence := ""
	prevBlank := true
	inIndented := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		blank := strings.TrimSpace(line) == ""
		indented := strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
		switch {
		case blank:
		case indented && (prevBlank || inIndented):
			inIndented = true
		default:
			inIndented = false
		}
		prevBlank = blank
		if inIndented || blank {
			continue
		}
		f(n, line)
	}
}

// Links returns the links of a Markdown page, outside code.
func Links(src []byte) []Link {
	var out []Link
	lines(src, func(n int, line string) {
		if m := refLink.FindStringSubmatch(line); m != nil {
			out = append(out, Link{Line: n, Target: m[1]})
			return
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Line: n, Target: m[1]})
		}
	})
	return out
}

// Slug is the anchor GitHub gives a heading: its text lowercased, inline
// code and links reduced to their text, every character that is not a
// letter, a digit, a space, a hyphen or an underscore dropped, and spaces
// made hyphens.
func Slug(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors returns the anchors of a Markdown page's headings. A heading
// whose slug is taken already gets -1, -2, … as on GitHub.
func Anchors(src []byte) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	lines(src, func(_ int, line string) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		s := Slug(m[2])
		if k := seen[s]; k > 0 {
			seen[s]++
			s = s + "-" + strconv.Itoa(k)
		} else {
			seen[s] = 1
		}
		out[s] = true
	})
	return out
}

// external reports whether a link leaves the repository.
func external(target string) bool {
	t := strings.ToLower(target)
	for _, p := range []string{"http://", "https://", "mailto:", "ftp://", "//"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// CheckPage checks the links of the page at rel (slash-separated, relative
// to root) and returns one sentence per broken link, naming its line.
func CheckPage(root, rel string) ([]string, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("doccheck: %w", err)
	}
	var broken []string
	anchors := map[string]map[string]bool{rel: Anchors(src)}
	for _, l := range Links(src) {
		if l.Target == "" || external(l.Target) {
			continue
		}
		file, anchor, _ := strings.Cut(l.Target, "#")
		target := rel
		if file != "" {
			if strings.HasPrefix(file, "/") {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: an absolute path; write it relative to the page", rel, l.Line, l.Target))
				continue
			}
			target = path.Clean(path.Join(path.Dir(rel), file))
			if strings.HasPrefix(target, "../") || target == ".." {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: outside the repository", rel, l.Line, l.Target))
				continue
			}
			info, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
			if err != nil {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: no such file or directory (%s)", rel, l.Line, l.Target, target))
				continue
			}
			if anchor != "" && (info.IsDir() || !strings.HasSuffix(target, ".md")) {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: an anchor on a file that is not a Markdown page", rel, l.Line, l.Target))
				continue
			}
		}
		if anchor == "" {
			continue
		}
		a, ok := anchors[target]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(target)))
			if err != nil {
				return nil, fmt.Errorf("doccheck: %w", err)
			}
			a = Anchors(b)
			anchors[target] = a
		}
		if !a[anchor] {
			broken = append(broken, fmt.Sprintf("%s:%d: %s: %s has no heading with the anchor #%s", rel, l.Line, l.Target, target, anchor))
		}
	}
	return broken, nil
}

// Pages returns the Markdown pages whose links are checked, relative to
// root and slash-separated: README.md and every .md file under docs/.
func Pages(root string) ([]string, error) {
	pages := []string{"README.md"}
	err := fs.WalkDir(os.DirFS(root), "docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("doccheck: listing docs: %w", err)
	}
	return pages, nil
}
