package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// MaxSentenceWords is the most words a sentence of the docs may hold.
const MaxSentenceWords = 40

// Sentence is a sentence of a Markdown page's prose.
type Sentence struct {
	// Line is the line the sentence starts on, from 1.
	Line int
	// Words is the number of words the sentence holds.
	Words int
	// Text is the sentence as counted: code spans and link targets
	// replaced by placeholders, emphasis markers dropped.
	Text string
}

// Start returns the first words of the sentence, at most n.
func (s Sentence) Start(n int) string {
	f := strings.Fields(s.Text)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + " …"
}

var (
	// listMarker matches a list item's marker: -, *, + or a number.
	listMarker = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,9}[.)])\s+`)
	// quoteMarker matches a block quote's markers.
	quoteMarker = regexp.MustCompile(`^\s{0,3}(?:>\s?)+`)
	// htmlTag matches a line that starts with an HTML tag or comment.
	htmlTag = regexp.MustCompile(`^<(?:/?[a-zA-Z][a-zA-Z0-9-]*[\s/>]|!--)`)
	// linkTarget matches the target of an inline link or image, and its
	// optional title.
	linkTarget = regexp.MustCompile(`\]\(\s*<?[^)\s>]*>?(?:\s+"[^"]*")?\s*\)`)
	// sentenceStop matches what ends a sentence: ., ! or ? after a word,
	// with the closing marks that may follow, then a space or the end.
	sentenceStop = regexp.MustCompile(`[.!?]["')\]*_]*(?:\s+|$)`)
)

// prose joins the lines of a page into blocks of prose, outside code
// blocks, tables, headings, reference definitions and HTML, and calls f
// with each block and the number of its first line. A blank line, a list
// item and a block quote's first line begin a new block.
func prose(src []byte, f func(first int, block []string)) {
	var (
		block []string
		first int
		last  = -1
		quote bool
	)
	flush := func() {
		if len(block) > 0 {
			f(first, block)
		}
		block = nil
	}
	lines(src, func(n int, line string) {
		trimmed := strings.TrimSpace(line)
		skip := heading.MatchString(line) ||
			strings.HasPrefix(trimmed, "|") ||
			htmlTag.MatchString(trimmed) ||
			refLink.MatchString(line)
		quoted := quoteMarker.MatchString(line)
		if skip || n != last+1 || listMarker.MatchString(line) || quoted && !quote {
			flush()
		}
		last, quote = n, quoted
		if skip {
			return
		}
		line = quoteMarker.ReplaceAllString(line, "")
		line = listMarker.ReplaceAllString(line, "")
		if len(block) == 0 {
			first = n
		}
		block = append(block, line)
	})
	flush()
}

// Sentences returns the sentences of a Markdown page's prose: outside code
// blocks, tables, headings and HTML. A code span counts as one word, as
// does a link's target; a word holds a letter or a digit (a dash alone is
// none). A sentence ends at ., ! or ? before a space, or at the end of its
// paragraph or list item; it may run over several lines, and so may a code
// span.
func Sentences(src []byte) []Sentence {
	var out []Sentence
	prose(src, func(first int, block []string) {
		text := strings.Join(block, "\n")
		text = codeSpan.ReplaceAllStringFunc(text, keepLines("`code`"))
		text = linkTarget.ReplaceAllStringFunc(text, keepLines("] (target)"))
		text = strings.NewReplacer("**", "", "__", "").Replace(text)
		add := func(from, to int) {
			s := text[from:to]
			trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
			if trimmed == "" {
				return
			}
			line := first + strings.Count(text[:to-len(trimmed)], "\n")
			words := strings.Join(strings.Fields(trimmed), " ")
			out = append(out, Sentence{Line: line, Words: countWords(words), Text: words})
		}
		from := 0
		for _, loc := range sentenceStop.FindAllStringIndex(text, -1) {
			add(from, loc[1])
			from = loc[1]
		}
		add(from, len(text))
	})
	return out
}

// keepLines returns a replacement by repl that keeps the line breaks of
// what it replaces, so that lines are still counted right after it.
func keepLines(repl string) func(string) string {
	return func(m string) string {
		return repl + strings.Repeat("\n", strings.Count(m, "\n"))
	}
}

// countWords counts the words of a sentence: its fields that hold a
// letter or a digit, so that a dash or an arrow between spaces is none.
func countWords(text string) int {
	n := 0
	for _, w := range strings.Fields(text) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// LongSentences returns one line per sentence of more than limit words in
// the page at rel (slash-separated, relative to root), naming the page,
// the line and the sentence's start.
func LongSentences(root, rel string, limit int) ([]string, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("doccheck: %w", err)
	}
	var long []string
	for _, s := range Sentences(src) {
		if s.Words > limit {
			long = append(long, fmt.Sprintf("%s:%d: a sentence of %d words (at most %d): %q", rel, s.Line, s.Words, limit, s.Start(12)))
		}
	}
	return long, nil
}
