package httpjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/httpjson"
)

type inner struct {
	Factor uint64 `json:"factor"`
}

type Embedded struct {
	Tag string `json:"tag"`
}

type target struct {
	Embedded
	Name   string          `json:"name"`
	N      uint64          `json:"n,omitempty"`
	Inner  *inner          `json:"inner"`
	Raw    json.RawMessage `json:"raw"`
	Hidden string          `json:"-"`
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name string
		body string
		// err is "" for success, else a part of the message; rawErr is the
		// same for DecodeStrictRaw when it differs ("-" for success).
		err, rawErr string
		want        target
	}{
		{"valid", `{"name":"a","n":2,"inner":{"factor":3},"raw":[1,{"x":null}],"tag":"t"}`, "", "",
			target{Embedded: Embedded{Tag: "t"}, Name: "a", N: 2, Inner: &inner{Factor: 3}, Raw: json.RawMessage(`[1,{"x":null}]`)}},
		{"trailing white space", " {\"name\":\"a\"}\n\t", "", "", target{Name: "a"}},
		{"null leaves the value", `null`, "", "", target{}},
		{"null field", `{"name":null}`, "", "", target{}},
		{"raw holds any keys", `{"raw":{"Name":1,"name":2}}`, "", "", target{Raw: json.RawMessage(`{"Name":1,"name":2}`)}},
		{"empty", ``, "request body is empty", "", target{}},
		{"only white space", "  \n", "request body is empty", "", target{}},
		{"malformed", `{"name":`, "not valid JSON of the expected shape", "", target{}},
		{"not an object", `[1]`, "cannot unmarshal array", "", target{}},
		{"wrong type", `{"n":"1"}`, "cannot unmarshal string", "", target{}},
		{"negative", `{"n":-1}`, "cannot unmarshal number -1", "", target{}},
		{"unknown field", `{"name":"a","fee":1}`, `unknown field "fee"`, "", target{}},
		{"ignored field", `{"Hidden":"x"}`, `unknown field "Hidden"`, "", target{}},
		{"case mismatch", `{"NAME":"a"}`, `request body: unknown field "NAME"`, "", target{}},
		{"nested case mismatch", `{"inner":{"Factor":1}}`, `unknown field "inner.Factor"`, "", target{}},
		{"nested unknown field", `{"inner":{"factor":1,"x":0}}`, `unknown field "x"`, "", target{}},
		{"duplicate field", `{"name":"a","name":"b"}`, `duplicate field "name"`, "", target{}},
		{"duplicate embedded field", `{"tag":"a","tag":"b"}`, `duplicate field "tag"`, "", target{}},
		{"data after the value", `{"name":"a"} {}`, "data after the JSON value", "", target{}},
		{"trailing bracket", `{"name":"a"}]`, "data after the JSON value", "", target{}},
		{"huge number in a raw value", `{"raw":[1e999]}`, "cannot unmarshal number 1e999", "-", target{Raw: json.RawMessage(`[1e999]`)}},
		{"huge number in a typed field", `{"n":1e999}`, "cannot unmarshal number 1e999", "", target{}},
	}
	for _, tt := range tests {
		for _, raw := range []bool{false, true} {
			decode, wantErr := httpjson.DecodeStrict, tt.err
			if raw {
				decode = httpjson.DecodeStrictRaw
				if tt.rawErr != "" {
					wantErr = strings.TrimPrefix(tt.rawErr, "-")
				}
			}
			t.Run(fmt.Sprintf("%s/raw=%v", tt.name, raw), func(t *testing.T) {
				var got target
				err := decode([]byte(tt.body), &got)
				if wantErr == "" {
					if err != nil {
						t.Fatalf("error %v", err)
					}
					gb, _ := json.Marshal(got)
					wb, _ := json.Marshal(tt.want)
					if !bytes.Equal(gb, wb) {
						t.Fatalf("decoded %s, want %s", gb, wb)
					}
					return
				}
				var e *httpjson.Error
				if !errors.As(err, &e) || e.Code != httpjson.CodeBadJSON {
					t.Fatalf("error %#v, want a bad_json *Error", err)
				}
				if !strings.Contains(e.Message, wantErr) {
					t.Fatalf("message %q does not contain %q", e.Message, wantErr)
				}
			})
		}
	}
}

var errDomain = errors.New("domain trouble")

// newServer returns a Server whose own codes are "teapot" (418) and
// "domain" (given by Options.Code to errors that wrap errDomain), logging to
// log.
func newServer(log io.Writer, maxBody int64) *httpjson.Server {
	return httpjson.New(httpjson.Options{
		Status: func(code string) int {
			if code == "teapot" {
				return http.StatusTeapot
			}
			if code == "domain" {
				return http.StatusConflict
			}
			return 499 // never asked for the package's own codes
		},
		Code: func(err error) string {
			if errors.Is(err, errDomain) {
				return "domain"
			}
			return ""
		},
		MaxBody: maxBody,
		Logger:  slog.New(slog.NewTextHandler(log, nil)),
		Name:    "test",
	})
}

func TestWriteError(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		code   string
		msg    string
		logged bool
	}{
		{"own code", httpjson.Errorf("teapot", "short and %s", "stout"), 418, "teapot", "short and stout", false},
		{"wrapped *Error", fmt.Errorf("context: %w", httpjson.Errorf("teapot", "inner")), 418, "teapot", "inner", false},
		{"*Error wrapping a domain error", httpjson.Errorf("teapot", "outer: %w", errDomain), 418, "teapot", "outer: domain trouble", false},
		{"code from Options.Code", fmt.Errorf("while testing: %w", errDomain), 409, "domain", "while testing: domain trouble", false},
		{"bad_json is 400", httpjson.Errorf(httpjson.CodeBadJSON, "x"), 400, httpjson.CodeBadJSON, "x", false},
		{"too_large is 413", httpjson.Errorf(httpjson.CodeTooLarge, "x"), 413, httpjson.CodeTooLarge, "x", false},
		{"route_not_found is 404", httpjson.Errorf(httpjson.CodeRouteNotFound, "x"), 404, httpjson.CodeRouteNotFound, "x", false},
		{"method_not_allowed is 405", httpjson.Errorf(httpjson.CodeMethodNotAllowed, "x"), 405, httpjson.CodeMethodNotAllowed, "x", false},
		{"internal is 500", httpjson.Errorf(httpjson.CodeInternal, "x"), 500, httpjson.CodeInternal, "x", false},
		{"plain error", errors.New("secret detail"), 500, httpjson.CodeInternal, "internal error", true},
		{"message HTML-escaped as json.Marshal does", httpjson.Errorf("teapot", "<b>"), 418, "teapot", "<b>", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			s := newServer(&log, 0)
			w := httptest.NewRecorder()
			w.Header().Set("Content-Encoding", "gzip")
			s.WriteError(w, tt.err)
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			b, _ := json.Marshal(httpjson.ErrorBody{Error: httpjson.ErrorDetail{Code: tt.code, Message: tt.msg}})
			if want := string(b) + "\n"; w.Body.String() != want {
				t.Errorf("body %q, want %q", w.Body, want)
			}
			h := w.Header()
			if h.Get("Content-Type") != "application/json" || h.Get("Content-Length") != strconv.Itoa(w.Body.Len()) || h.Get("Content-Encoding") != "" {
				t.Errorf("headers %v", h)
			}
			if logged := strings.Contains(log.String(), "test: internal error"); logged != tt.logged {
				t.Errorf("logged %v, want %v: %s", logged, tt.logged, log.String())
			}
			if strings.Contains(w.Body.String(), "secret") {
				t.Errorf("an internal error's text reached the client: %s", w.Body)
			}
		})
	}
}

func TestErrorfWraps(t *testing.T) {
	err := httpjson.Errorf("teapot", "reading: %w", io.ErrUnexpectedEOF)
	if !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "reading: unexpected EOF" {
		t.Fatalf("err %v does not wrap io.ErrUnexpectedEOF", err)
	}
	if err := httpjson.Errorf("teapot", "no cause"); errors.Unwrap(err) != nil {
		t.Fatalf("err %v wraps %v", err, errors.Unwrap(err))
	}
}

// errReader fails every read.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestServeHTTP(t *testing.T) {
	var log bytes.Buffer
	s := newServer(&log, 64)
	s.HandleJSON("GET /thing", func(*http.Request) (any, error) {
		return map[string]string{"html": "<&>"}, nil
	})
	s.HandleJSON("POST /thing", func(*http.Request) (any, error) {
		return nil, httpjson.Errorf("teapot", "no")
	})
	s.HandleJSON("POST /echo", func(r *http.Request) (any, error) {
		var v struct {
			Name string `json:"name"`
		}
		if err := s.ReadJSON(r, &v); err != nil {
			return nil, err
		}
		return v, nil
	})
	s.Handle("GET /boom", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	tests := []struct {
		name, method, path string
		body               io.Reader
		status             int
		code               string // "" for a success
		msg                string // a part of the message, or of the body on success
		allow              string
	}{
		{"value", "GET", "/thing", nil, 200, "", `{"html":"<&>"}`, ""},
		{"error", "POST", "/thing", nil, 418, "teapot", "no", ""},
		{"wrong method", "DELETE", "/thing", nil, 405, httpjson.CodeMethodNotAllowed, "method DELETE is not allowed on /thing (allowed: GET, HEAD, POST)", "GET, HEAD, POST"},
		{"wrong method on a sub-path", "PUT", "/echo", nil, 405, httpjson.CodeMethodNotAllowed, "(allowed: POST)", "POST"},
		{"no route", "GET", "/nope", nil, 404, httpjson.CodeRouteNotFound, "no route GET /nope", ""},
		{"no route under a route", "GET", "/thing/more", nil, 404, httpjson.CodeRouteNotFound, "no route GET /thing/more", ""},
		{"unclean path", "GET", "/a/../nope", nil, 404, httpjson.CodeRouteNotFound, "no route GET /a/../nope", ""},
		{"panic", "GET", "/boom", nil, 500, httpjson.CodeInternal, "internal error", ""},
		{"strict body", "POST", "/echo", strings.NewReader(`{"name":"a"}`), 200, "", `{"name":"a"}`, ""},
		{"unknown field", "POST", "/echo", strings.NewReader(`{"Name":"a"}`), 400, httpjson.CodeBadJSON, `unknown field "Name"`, ""},
		{"body at the limit", "POST", "/echo", strings.NewReader(`{"name":"` + strings.Repeat("a", 64-11) + `"}`), 200, "", `{"name":"aaa`, ""},
		{"body over the limit", "POST", "/echo", strings.NewReader(`{"name":"` + strings.Repeat("a", 64-10) + `"}`), 413, httpjson.CodeTooLarge, "request body is over the limit of 64 bytes", ""},
		{"unreadable body", "POST", "/echo", errReader{}, 400, httpjson.CodeBadJSON, "reading the request body: unexpected EOF", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, tt.body))
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if allow := w.Header().Get("Allow"); allow != tt.allow {
				t.Errorf("Allow %q, want %q", allow, tt.allow)
			}
			if tt.code == "" {
				if !strings.Contains(w.Body.String(), tt.msg) {
					t.Errorf("body %s does not contain %s", w.Body, tt.msg)
				}
				return
			}
			var eb httpjson.ErrorBody
			dec := json.NewDecoder(w.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&eb); err != nil {
				t.Fatalf("error body: %v", err)
			}
			if eb.Error.Code != tt.code || !strings.Contains(eb.Error.Message, tt.msg) {
				t.Errorf("error %+v, want code %q with %q", eb.Error, tt.code, tt.msg)
			}
		})
	}
	if !strings.Contains(log.String(), "test: panic") {
		t.Errorf("the panic was not logged: %s", log.String())
	}
}

func TestReadErrorCode(t *testing.T) {
	s := httpjson.New(httpjson.Options{ReadErrorCode: "bad_request", Status: func(string) int { return http.StatusBadRequest }})
	s.HandleJSON("POST /", func(r *http.Request) (any, error) {
		_, err := s.ReadBody(r)
		return nil, err
	})
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("POST", "/", errReader{}))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"code":"bad_request"`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestAbortHandlerPanics(t *testing.T) {
	s := httpjson.New(httpjson.Options{})
	s.Handle("GET /", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler { //nolint:errorlint // the panic value itself must pass through
			t.Fatalf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	t.Fatal("ServeHTTP returned")
}

// TestLimit: a route's own Limit replaces MaxBody for it alone.
func TestLimit(t *testing.T) {
	s := httpjson.New(httpjson.Options{MaxBody: 10})
	echo := func(r *http.Request) (any, error) {
		b, err := s.ReadBody(r)
		return len(b), err
	}
	s.HandleJSON("POST /big", echo)
	s.HandleJSON("POST /small", echo)
	s.Limit("POST /big", 100)
	for _, tc := range []struct {
		path   string
		size   int
		status int
	}{
		{"/small", 10, http.StatusOK},
		{"/small", 11, http.StatusRequestEntityTooLarge},
		{"/big", 100, http.StatusOK},
		{"/big", 101, http.StatusRequestEntityTooLarge},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(strings.Repeat("x", tc.size))))
		if w.Code != tc.status {
			t.Errorf("%s with %d bytes: %d, want %d", tc.path, tc.size, w.Code, tc.status)
		}
	}
}
