package apitest

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/apidoc"
)

// validator is the checker of the committed OpenAPI document, made once.
var validator = sync.OnceValues(func() (*apidoc.Validator, error) { return apidoc.NewValidator(apispec.OpenAPI) })

// maxRecorded is the most of an answer recorded for the check; a longer
// one (an event stream) is checked on its first bytes, which fails unless
// its route is exempt.
const maxRecorded = 16 << 20

// validating wraps h so that every request and its answer are checked
// against the OpenAPI document (apidoc.Validator.Check); each mismatch is
// recorded, and Close returns them.
func (n *Node) validating(v *apidoc.Validator, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			_ = r.Body.Close()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		err := v.Check(apidoc.Exchange{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Request: body,
			Status: rec.status, ContentType: rec.Header().Get("Content-Type"), Header: rec.Header(), Response: rec.body.Bytes()})
		if err != nil {
			n.mu.Lock()
			n.violations = append(n.violations, err)
			n.mu.Unlock()
		}
	})
}

// recorder passes an answer on and keeps its status and body.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.body.Len() < maxRecorded {
		r.body.Write(b[:min(len(b), maxRecorded-r.body.Len())])
	}
	return r.ResponseWriter.Write(b)
}

// Flush passes a flush on (the event streams flush each event).
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap is the wrapped writer, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
