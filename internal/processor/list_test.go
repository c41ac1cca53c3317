package processor_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/processor"
)

// TestProcessorList pages GET /v1/processors in name order: Next is the
// after of the following page, "" on the last; reads need a token.
func TestProcessorList(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e := newEnv(ctx, t) // creates "p"
	for _, name := range []string{"q", "a"} {
		e.call(t, "admin", "POST", "/v1/processors", `{"name":"`+name+`","owner":"alice"}`, http.StatusOK)
	}
	for _, c := range []struct {
		query    string
		want     []string
		wantNext string
	}{
		{"", []string{"a", "p", "q"}, ""},
		{"?limit=2", []string{"a", "p"}, "p"},
		{"?after=p&limit=2", []string{"q"}, ""},
		{"?after=a&limit=1", []string{"p"}, "p"},
		{"?after=q", nil, ""},
	} {
		var page processor.ProcessorsPage
		if err := json.Unmarshal(e.call(t, "bob", "GET", "/v1/processors"+c.query, "", http.StatusOK), &page); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range page.Processors {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, c.want) || page.Next != c.wantNext {
			t.Errorf("GET /v1/processors%s: %v next %q, want %v next %q", c.query, got, page.Next, c.want, c.wantNext)
		}
	}
	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=x", "?offset=1", "?after=a&after=b"} {
		e.call(t, "bob", "GET", "/v1/processors"+q, "", http.StatusBadRequest)
	}
	e.call(t, "", "GET", "/v1/processors", "", http.StatusUnauthorized)
}
