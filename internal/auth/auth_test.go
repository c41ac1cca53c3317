package auth

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const (
	tokAlice = "alice-token-0123456789"
	tokBob   = "bob-token-0123456789ab"
)

func testConfig() Config {
	return Config{Principals: []PrincipalConfig{
		{Principal: "alice", Token: tokAlice, Roles: []Role{RoleSubmit, RoleRead}},
		{Principal: "bob", TokenSHA256: TokenSHA256(tokBob), Roles: []Role{RoleRead}},
		{Principal: "root", Token: "root-token-0123456789", Roles: []Role{RoleAdmin}},
	}}
}

func TestValidate(t *testing.T) {
	sha := TokenSHA256(tokAlice)
	for _, tc := range []struct {
		name  string
		ps    []PrincipalConfig
		field string // "" means valid
	}{
		{"ok", testConfig().Principals, ""},
		{"none", nil, ""},
		{"no name", []PrincipalConfig{{Token: tokAlice}}, "principals[0].principal: is required"},
		{"bad name", []PrincipalConfig{{Principal: "a b", Token: tokAlice}}, "principals[0].principal:"},
		{"dup name", []PrincipalConfig{{Principal: "a", Token: tokAlice}, {Principal: "a", Token: tokBob}}, "principals[1].principal:"},
		{"no token", []PrincipalConfig{{Principal: "a"}}, "principals[0]: needs a token"},
		{"both", []PrincipalConfig{{Principal: "a", Token: tokAlice, TokenSHA256: sha}}, "principals[0]: has both"},
		{"short", []PrincipalConfig{{Principal: "a", Token: "short"}}, "principals[0].token: must be at least 16 bytes"},
		{"space", []PrincipalConfig{{Principal: "a", Token: "0123456789 abcdefgh"}}, "principals[0].token:"},
		{"bad sha", []PrincipalConfig{{Principal: "a", TokenSHA256: "xyz"}}, "principals[0].tokenSHA256:"},
		{"upper sha", []PrincipalConfig{{Principal: "a", TokenSHA256: strings.ToUpper(sha)}}, ""},
		{"same token", []PrincipalConfig{{Principal: "a", Token: tokAlice}, {Principal: "b", TokenSHA256: sha}}, "principals[1]: has the same token as principals[0]"},
		{"bad role", []PrincipalConfig{{Principal: "a", Token: tokAlice, Roles: []Role{"Admin"}}}, "principals[0].roles[0]:"},
		{"long role", []PrincipalConfig{{Principal: "a", Token: tokAlice, Roles: []Role{Role(strings.Repeat("r", 33))}}}, "principals[0].roles[0]:"},
		{"custom role", []PrincipalConfig{{Principal: "a", Token: tokAlice, Roles: []Role{"processor_ops-2"}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Config{Principals: tc.ps}.Validate()
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.field != "" && (err == nil || !strings.Contains(err.Error(), tc.field)):
				t.Fatalf("Validate: %v, want an error naming %q", err, tc.field)
			}
			if err != nil && (strings.Contains(err.Error(), tokAlice) || strings.Contains(err.Error(), tokBob)) {
				t.Fatalf("the error quotes a token: %v", err)
			}
		})
	}
}

func TestAuthenticate(t *testing.T) {
	a, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		header []string
		want   string
		err    error
	}{
		{nil, "", ErrNoCredentials},
		{[]string{"Bearer " + tokAlice}, "alice", nil},
		{[]string{"bearer  " + tokBob}, "bob", nil}, // by its configured hash
		{[]string{"Bearer root-token-0123456789"}, "root", nil},
		{[]string{"Bearer " + tokAlice + "x"}, "", ErrUnknownToken},
		{[]string{"Bearer nope-nope-nope-nope"}, "", ErrUnknownToken},
		{[]string{"Basic " + tokAlice}, "", ErrNoCredentials},
		{[]string{"Bearer"}, "", ErrNoCredentials},
		{[]string{"Bearer "}, "", ErrNoCredentials},
		{[]string{tokAlice}, "", ErrNoCredentials},
		{[]string{"Bearer " + tokAlice + " x"}, "", ErrNoCredentials},
		{[]string{"Bearer " + tokAlice, "Bearer " + tokAlice}, "", ErrNoCredentials},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		for _, h := range tc.header {
			r.Header.Add("Authorization", h)
		}
		p, err := a.Authenticate(r)
		if !errors.Is(err, tc.err) || p.Name != tc.want {
			t.Errorf("%q: got %q, %v; want %q, %v", tc.header, p.Name, err, tc.want, tc.err)
		}
	}

	open, _ := New(Config{Open: true})
	p, err := open.Authenticate(httptest.NewRequest(http.MethodGet, "/", nil))
	if err != nil || p.Name != DevPrincipal || !p.Has(RoleAdmin) || !p.Has("anything") {
		t.Fatalf("open mode: %v %v", p, err)
	}
}

func TestHas(t *testing.T) {
	p := Principal{Name: "a", Roles: []Role{RoleSubmit}}
	if !p.Has(RoleSubmit) || p.Has(RoleRead) || p.HasAny(nil) || !p.HasAny([]Role{RoleRead, RoleSubmit}) {
		t.Fatal("Has/HasAny on a submitter")
	}
	admin := Principal{Name: "r", Roles: []Role{RoleAdmin}}
	if !admin.Has(RoleRead) || !admin.Has("custom") || admin.HasAny(nil) {
		t.Fatal("admin holds every role, and nothing of an empty list")
	}
}

// TestConstantTimeLookup checks that a lookup compares the presented
// token's hash with every configured hash, whichever matches (first, last,
// none): no early exit, and always through subtle.ConstantTimeCompare.
func TestConstantTimeLookup(t *testing.T) {
	a, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	orig := compare
	t.Cleanup(func() { compare = orig })
	calls := 0
	compare = func(x, y []byte) int { calls++; return orig(x, y) }
	for _, tok := range []string{tokAlice, "root-token-0123456789", "unknown-token-012345", tokBob} {
		calls = 0
		_, _ = a.lookup(tok)
		if calls != len(a.entries) {
			t.Errorf("token #%d: %d comparisons, want %d (one per principal)", len(tok), calls, len(a.entries))
		}
	}
}

func TestRedaction(t *testing.T) {
	c := testConfig()
	c.Principals[1].TokenSHA256 = TokenSHA256(tokBob)
	secrets := []string{tokAlice, "root-token-0123456789", c.Principals[1].TokenSHA256}
	var logs bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&logs, nil))
	l.Info("config", "auth", c, "p", c.Principals[0])
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "auth", c, "ps", c.Principals)
	outs := []string{logs.String(), c.String(), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprintf("%v %+v %#v", c.Principals, c.Principals, c.Principals)}
	for _, out := range outs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Fatalf("printed a token: %s", out)
			}
		}
		if !strings.Contains(out, "alice") {
			t.Fatalf("does not name the principals: %s", out)
		}
	}
	h := c.Hashed()
	for _, p := range h.Principals {
		if p.Token != "" || len(p.TokenSHA256) != 64 {
			t.Fatalf("Hashed kept a token: %v", p.Principal)
		}
	}
	if c.Principals[0].Token != tokAlice {
		t.Fatal("Hashed changed its receiver")
	}
	a1, _ := New(c)
	a2, err := New(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{tokAlice, tokBob} {
		p1, _ := a1.lookup(tok)
		p2, _ := a2.lookup(tok)
		if p1.Name != p2.Name || p1.Name == "" {
			t.Fatalf("Hashed config authenticates differently: %q %q", p1.Name, p2.Name)
		}
	}
}

func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  abc", "Bearer", "Bearer ", "Basic abc", "Bearer a b", "Bearer a\x00", "BEARER \t x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		tok, ok := ParseBearer(v)
		if !ok {
			if tok != "" {
				t.Fatalf("%q: a token without ok", v)
			}
			return
		}
		if tok == "" || strings.ContainsFunc(tok, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			t.Fatalf("%q: token %q is empty or has a space or control byte", v, tok)
		}
		if !strings.HasSuffix(v, tok) || !strings.EqualFold(v[:6], "Bearer") {
			t.Fatalf("%q: token %q is not the header's tail after Bearer", v, tok)
		}
		// Authenticate never panics on it, and an unknown token is only
		// ErrUnknownToken.
		a, _ := New(testConfig())
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", v)
		if _, err := a.Authenticate(r); err != nil && !errors.Is(err, ErrUnknownToken) {
			t.Fatalf("%q: %v", v, err)
		}
	})
}
