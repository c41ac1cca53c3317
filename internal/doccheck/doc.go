// Package doccheck keeps the repository's documentation true.
//
// It checks three things:
//
//   - Links. Every relative link in README.md and docs/**/*.md must name a
//     file or directory of the repository. A link with an anchor
//     (page.md#section, or #section in the same page) must name a heading
//     of that page, as GitHub makes anchors of headings (Slug). Links to
//     other sites (http, https, mailto) are not followed. Text in code
//     blocks and code spans is not read.
//
//   - Sentence length. No sentence of README.md or docs/**/*.md holds
//     more than MaxSentenceWords (40) words, outside code blocks, tables,
//     headings and HTML (Sentences). A code span counts as one word, as
//     does a link's target. The test names the page, the line and the
//     sentence's start.
//
//   - The configuration reference. docs/configuration-reference.md is made
//     from the comments of the node's configuration types (internal/node's
//     Config and every struct it holds, in internal/node, internal/smm and
//     internal/auth): each field, its YAML key, its type and the default
//     its comment states ("Defaults to …"). ConfigReference makes it; the
//     test fails when the committed file differs, and says how to make it
//     again:
//
//     go run ./internal/doccheck/cmd/configref
//
// The tests run with the package's other tests (go test ./internal/doccheck).
package doccheck

//go:generate go run ./cmd/configref -root ../.. -out ../../docs/configuration-reference.md
