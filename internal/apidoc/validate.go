package apidoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// docURL is the location the validator's compiler knows the document by.
const docURL = "urn:ordo:openapi.json"

// Validator checks requests and their answers against an OpenAPI
// document, its schemas read as JSON Schema 2020-12.
type Validator struct {
	paths map[string]map[string]any // path template → method → operation
	c     *jsonschema.Compiler
	mu    sync.Mutex
	cache map[string]*jsonschema.Schema // by JSON pointer
}

// NewValidator returns a Validator of doc, an OpenAPI 3.1 document.
func NewValidator(doc []byte) (*Validator, error) {
	var d struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, inst); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	return &Validator{paths: d.Paths, c: c, cache: map[string]*jsonschema.Schema{}}, nil
}

// Exchange is a request and its answer.
type Exchange struct {
	// Path is the request's path as sent, escaped (url.URL.EscapedPath),
	// which net/http.ServeMux matches.
	Method, Path, RawQuery string
	// Request is the request's body (nil or empty: none).
	Request []byte
	Status  int
	// ContentType is the answer's Content-Type.
	ContentType string
	// Header are the answer's headers (nil: not checked).
	Header http.Header
	// Response is the answer's body.
	Response []byte
}

// Check returns why the document does not allow x, or nil. The answer is
// always checked: its route and status documented, its JSON body of the
// status's schema. The request is checked when it was answered 2xx: its
// query parameters and JSON body allowed (a request the node refused is
// checked only through the refusal's answer). A route the document names
// exempt (x-ordo-exempt) is checked for its route and status alone; a
// path no route has must be answered 404 route_not_found or 405
// method_not_allowed.
func (v *Validator) Check(x Exchange) error {
	tmpl, op := v.find(x.Method, x.Path)
	if op == nil {
		if x.Status != 404 && x.Status != 405 {
			return fmt.Errorf("%s %s: no route in the document, answered %d", x.Method, x.Path, x.Status)
		}
		return v.schemaCheck("#/components/schemas/ErrorBody", x.Response, "answer")
	}
	ptr := "#/paths/" + escape(tmpl) + "/" + strings.ToLower(x.Method)
	responses, _ := op["responses"].(map[string]any)
	st := strconv.Itoa(x.Status)
	resp, ok := responses[st].(map[string]any)
	if !ok {
		return fmt.Errorf("%s %s: answered %d, a status the document does not give the route (%s)", x.Method, x.Path, x.Status, keys(responses))
	}
	if _, exempt := op["x-ordo-exempt"]; exempt {
		return nil
	}
	if err := checkHeaders(resp, x.Header); err != nil {
		return fmt.Errorf("%s %s %d: %w", x.Method, x.Path, x.Status, err)
	}
	if content, _ := resp["content"].(map[string]any); content["application/json"] != nil {
		if !strings.HasPrefix(x.ContentType, "application/json") {
			return fmt.Errorf("%s %s: answered %d with Content-Type %q, not application/json", x.Method, x.Path, x.Status, x.ContentType)
		}
		if err := v.schemaCheck(ptr+"/responses/"+st+"/content/application~1json/schema", x.Response, "answer"); err != nil {
			return fmt.Errorf("%s %s %d: %w", x.Method, x.Path, x.Status, err)
		}
	}
	if x.Status < 200 || x.Status > 299 {
		return nil
	}
	if err := v.checkQuery(op, ptr, x.RawQuery); err != nil {
		return fmt.Errorf("%s %s: %w", x.Method, x.Path, err)
	}
	if len(bytes.TrimSpace(x.Request)) == 0 {
		if rb, _ := op["requestBody"].(map[string]any); rb != nil && rb["required"] == true {
			return fmt.Errorf("%s %s: answered %d to a request without the body the document requires", x.Method, x.Path, x.Status)
		}
		return nil
	}
	if _, ok := op["requestBody"]; !ok {
		return nil // a body the route ignores ({} to a tick, say)
	}
	if err := v.schemaCheck(ptr+"/requestBody/content/application~1json/schema", x.Request, "request"); err != nil {
		return fmt.Errorf("%s %s (answered %d): %w", x.Method, x.Path, x.Status, err)
	}
	return nil
}

// checkHeaders refuses an answer without a header its response requires,
// or with one whose value its pattern refuses.
func checkHeaders(resp map[string]any, h http.Header) error {
	if h == nil {
		return nil
	}
	hs, _ := resp["headers"].(map[string]any)
	for name, spec := range hs {
		sp, _ := spec.(map[string]any)
		v := h.Get(name)
		if v == "" {
			if sp["required"] == true {
				return fmt.Errorf("no %s header", name)
			}
			continue
		}
		sc, _ := sp["schema"].(map[string]any)
		if pat, ok := sc["pattern"].(string); ok && !regexp.MustCompile(pat).MatchString(v) {
			return fmt.Errorf("header %s: %q does not match %s", name, v, pat)
		}
	}
	return nil
}

// find returns the template and operation of a request's route: of the
// templates that match, the one with the fewest wildcards, as
// net/http.ServeMux picks the most specific pattern.
func (v *Validator) find(method, path string) (string, map[string]any) {
	segs := strings.Split(path, "/")
	best, wild := "", len(segs)+1
	for tmpl, ops := range v.paths {
		if _, ok := ops[strings.ToLower(method)]; !ok {
			continue
		}
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		n := 0
		for i := range ts {
			switch {
			case ts[i] == unescape(segs[i]):
			case strings.HasPrefix(ts[i], "{") && segs[i] != "":
				n++
			default:
				n = len(segs) + 1
			}
		}
		if n < wild || (n == wild && tmpl < best) {
			best, wild = tmpl, n
		}
	}
	if best == "" || wild > len(segs) {
		return "", nil
	}
	op, _ := v.paths[best][strings.ToLower(method)].(map[string]any)
	return best, op
}

// checkQuery refuses a query parameter the operation at ptr does not
// name, or a value its schema does not allow.
func (v *Validator) checkQuery(op map[string]any, ptr, raw string) error {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return fmt.Errorf("query %q: %w", raw, err)
	}
	params, _ := op["parameters"].([]any)
	for name, vals := range q {
		i := slices.IndexFunc(params, func(p any) bool {
			pm, _ := p.(map[string]any)
			return pm["in"] == "query" && pm["name"] == name
		})
		if i < 0 {
			return fmt.Errorf("query parameter %q is not in the document", name)
		}
		schema, _ := params[i].(map[string]any)["schema"].(map[string]any)
		for _, val := range vals {
			if val == "" {
				continue // an empty value counts as absent
			}
			var inst any = val
			if schema["type"] == "integer" {
				if _, err := strconv.ParseInt(val, 10, 64); err != nil {
					return fmt.Errorf("query parameter %s=%q is not an integer", name, val)
				}
				inst = json.Number(val)
			}
			sch := v.compile(ptr + "/parameters/" + strconv.Itoa(i) + "/schema")
			if sch == nil {
				return fmt.Errorf("the document's schema of query parameter %s does not compile", name)
			}
			if err := sch.Validate(inst); err != nil {
				return fmt.Errorf("query parameter %s=%q: %w", name, val, err)
			}
		}
	}
	return nil
}

// schemaCheck validates body, JSON, against the schema at ptr.
func (v *Validator) schemaCheck(ptr string, body []byte, what string) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the %s is not JSON: %w: %s", what, err, httpjson.Excerpt(string(body)))
	}
	sch := v.compile(ptr)
	if sch == nil {
		return fmt.Errorf("the document's schema at %s does not compile", ptr)
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("the %s does not match the document (%s): %s: %w", what, ptr, httpjson.Excerpt(string(body)), ve)
		}
		return err
	}
	return nil
}

// compile returns the schema at the document's ptr, compiled once; nil
// when it does not compile.
func (v *Validator) compile(ptr string) *jsonschema.Schema {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.cache[ptr]; ok {
		return s
	}
	s, err := v.c.Compile(docURL + ptr)
	if err != nil {
		s = nil
	}
	v.cache[ptr] = s
	return s
}

// escape writes a path template as a JSON pointer token in a URL
// fragment.
func escape(tmpl string) string {
	t := strings.ReplaceAll(strings.ReplaceAll(tmpl, "~", "~0"), "/", "~1")
	return url.PathEscape(t)
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

// unescape is a path segment unescaped (as it is when it is not valid).
func unescape(seg string) string {
	if u, err := url.PathUnescape(seg); err == nil {
		return u
	}
	return seg
}
