package httpjson

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CodeUnsupportedMediaType (415) is the code of a request to a mutating
// route (POST, PUT, PATCH, DELETE) without Content-Type: application/json
// (see RequireJSON).
const CodeUnsupportedMediaType = "unsupported_media_type"

// Mutating reports whether a request with this method may change state:
// POST, PUT, PATCH or DELETE. It is the kind of request a page on another
// origin could send to a server on localhost without asking (a form post, a
// fetch with a text body).
func Mutating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// RequireJSON refuses (an unsupported_media_type *Error) a request whose
// Content-Type is not application/json: exactly one Content-Type header,
// application/json in any case, parameters allowed, a charset, if given,
// only utf-8. A browser sends such a request cross-origin only after a CORS
// preflight, which a server answers only for the origins its operator lists:
// forms (application/x-www-form-urlencoded, multipart/form-data) and
// text/plain bodies, which need no preflight, are refused before anything
// is read. It looks at the headers only, whatever the method; see Mutating
// and JSONOnly.
func RequireJSON(r *http.Request) error {
	ct := r.Header.Values("Content-Type")
	if len(ct) == 0 {
		return Errorf(CodeUnsupportedMediaType, "a %s needs Content-Type: application/json; the request has none", r.Method)
	}
	if len(ct) > 1 {
		return Errorf(CodeUnsupportedMediaType, "a %s needs one Content-Type: application/json; the request has %d", r.Method, len(ct))
	}
	mt, params, err := mime.ParseMediaType(ct[0])
	if err != nil || mt != "application/json" {
		return Errorf(CodeUnsupportedMediaType, "a %s needs Content-Type: application/json, not %s", r.Method, Excerpt(ct[0]))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return Errorf(CodeUnsupportedMediaType, "a %s needs Content-Type: application/json in UTF-8 (charset=utf-8 or none), not charset %s", r.Method, Excerpt(cs))
	}
	return nil
}

// JSONOnly wraps h so that a mutating request (see Mutating) without
// Content-Type: application/json is answered 415 unsupported_media_type, in
// s's error shape, before h or anything else reads it. Other requests reach
// h as they are.
func (s *Server) JSONOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Mutating(r.Method) {
			if err := RequireJSON(r); err != nil {
				s.WriteError(w, err)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// excerptBytes is the most of an input an error message quotes.
const excerptBytes = 64

// Excerpt quotes s for an error message: whole when it is at most 64 bytes,
// else its first 64 bytes at most, cut on a rune boundary, then "…" and its
// length. An error never echoes an oversized input back; every API and the
// sequencer's intake quote inputs through it.
func Excerpt(s string) string {
	if len(s) <= excerptBytes {
		return strconv.Quote(s)
	}
	cut := excerptBytes
	for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); back++ {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}
