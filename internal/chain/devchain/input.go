package devchain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/httpjson"
)

// Checks of input that encoding/json and chain.Tx.Validate let through: a
// request body that JSON would read as something else than what was sent
// (invalid UTF-8, unpaired surrogates), a null body, a NUL in a memo and
// duplicate keys in args, which two readers may resolve differently.

// decodeBody decodes a request body into v (a pointer to a struct) as
// httpjson.DecodeStrict does, and also refuses, as bad_json, a body that is
// not valid UTF-8, that holds an unpaired UTF-16 surrogate escape (JSON
// would read either as U+FFFD) or that is the JSON null (which would decode
// as an empty request).
func decodeBody(b []byte, v any) error {
	if err := textError(b); err != nil {
		return httpjson.Errorf(CodeBadJSON, "request body: %w", err)
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return httpjson.Errorf(CodeBadJSON, "request body is null; expected a JSON object")
	}
	return httpjson.DecodeStrict(b, v)
}

// textError reports why b is not text JSON carries unchanged: invalid
// UTF-8, or a \u escape of an unpaired UTF-16 surrogate. Other syntax errors
// are left to the decoder.
func textError(b []byte) error {
	if !utf8.Valid(b) {
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Errorf("not valid UTF-8 at byte %d", i)
			}
			i += n
		}
	}
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\':
			if i+1 < len(b) && b[i+1] != 'u' {
				i++ // a one-character escape, \" and \\ included
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				continue // malformed: the decoder says so
			}
			at := i
			i += 5 // the escape's last byte
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return fmt.Errorf("unpaired UTF-16 surrogate \\u%04x at byte %d", r, at)
			case r >= 0xD800 && r <= 0xDBFF:
				if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					if lo, ok := hex4(b, i+3); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						i += 6
						continue
					}
				}
				return fmt.Errorf("unpaired UTF-16 surrogate \\u%04x at byte %d", r, at)
			}
		}
	}
	return nil
}

// hex4 reads the 4 hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// checkTxInput checks what chain.Tx.Validate does not: the memo has no NUL
// (Validate checks it is UTF-8), no object in args repeats a key, and
// every number in args is one the encoding carries (chain.CheckNumber:
// the HTTP API's strict decoding refuses the others, so the in-process
// chain and the client refuse them too). Args over chain.MaxArgs are
// left to Validate.
func checkTxInput(tx *chain.Tx) error {
	if strings.IndexByte(tx.Memo, 0) >= 0 {
		return fmt.Errorf("%w: memo contains a NUL byte", chain.ErrInvalidTx)
	}
	if tx.Gas != 0 { // devchain has no gas, and its hash does not cover it
		return fmt.Errorf("%w: gas: devchain transactions have no gas limit", chain.ErrInvalidTx)
	}
	if len(tx.Args) <= chain.MaxArgs {
		if err := checkArgsKeys(tx.Args); err != nil {
			return fmt.Errorf("%w: %w", chain.ErrInvalidTx, err)
		}
		if err := chain.CheckArgsNumbers(tx.Args); err != nil {
			return fmt.Errorf("%w: args: %w", chain.ErrInvalidTx, err)
		}
	}
	return nil
}

// errDuplicateKey is what checkArgsKeys wraps.
var errDuplicateKey = errors.New("duplicate key")

// checkArgsKeys refuses args in which an object, at any depth, has a key
// twice (compared after unescaping: "a" and "\u0061" are the same key). The
// error names the key by its path ("a.b[2].c"). Args that are not JSON are
// left to Validate.
func checkArgsKeys(args json.RawMessage) error {
	if len(args) == 0 {
		return nil
	}
	path, found, err := duplicateKey(args)
	if err != nil || !found {
		return nil
	}
	return fmt.Errorf("args: %w %q", errDuplicateKey, path)
}

// duplicateKey returns the path of the first key that an object of the JSON
// value raw holds twice, if there is one. It walks the value without
// recursion.
func duplicateKey(raw []byte) (path string, found bool, err error) {
	type container struct {
		object  bool
		path    string
		keys    map[string]bool
		wantKey bool   // object: the next token is a key or '}'
		key     string // object: the path of the value being read
		index   int    // array: the index of the value being read
	}
	var stack []*container
	valuePath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.object {
			return top.key
		}
		return fmt.Sprintf("%s[%d]", top.path, top.index)
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		if top := stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			top := stack[n-1]
			k, ok := tok.(string)
			if !ok { // '}'
				stack = stack[:n-1]
				valueDone()
				continue
			}
			p := k
			if top.path != "" {
				p = top.path + "." + k
			}
			if top.keys[k] {
				return p, true, nil
			}
			top.keys[k], top.key, top.wantKey = true, p, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &container{object: true, path: valuePath(), keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &container{path: valuePath()})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
