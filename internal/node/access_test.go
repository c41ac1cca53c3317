package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
)

const (
	accessSubmit = "node-access-submit-token"
	accessRead   = "node-access-read-token-x"
)

func accessPrincipals() []auth.PrincipalConfig {
	return []auth.PrincipalConfig{
		{Principal: "app", Token: accessSubmit, Roles: []auth.Role{auth.RoleSubmit}},
		{Principal: "ops", TokenSHA256: auth.TokenSHA256(accessRead), Roles: []auth.Role{auth.RoleRead}},
	}
}

func TestListenDefault(t *testing.T) {
	var c Config
	c.SetDefaults()
	if c.Listen != "127.0.0.1:7070" {
		t.Fatalf("listen defaults to %q, want 127.0.0.1:7070 (loopback only)", c.Listen)
	}
}

func TestCheckAccess(t *testing.T) {
	err := Config{}.CheckAccess()
	if !errors.Is(err, ErrNoPrincipals) {
		t.Fatalf("no principal, no dev mode: %v", err)
	}
	for _, s := range []string{"principals:", "tokenSHA256:", "ordo token", "--token", "ORDO_TOKEN", "--dev-mode"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the refusal does not say %q:\n%v", s, err)
		}
	}
	if err := (Config{DevMode: true}).CheckAccess(); err != nil {
		t.Fatalf("dev mode: %v", err)
	}
	if err := (Config{Principals: accessPrincipals()}).CheckAccess(); err != nil {
		t.Fatalf("a principal: %v", err)
	}
}

func TestAccessConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ordo.yaml")
	yaml := `principals:
  - principal: app
    token: ` + accessSubmit + `
    roles: [submit]
  - principal: ops
    tokenSHA256: ` + auth.TokenSHA256(accessRead) + `
    roles: [read, custom_role]
openReads: true
intake:
  typeRoles:
    SEND_CLAIM_VOTE: [voters]
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(c.Principals) != 2 || c.Principals[1].Roles[1] != "custom_role" || !c.OpenReads {
		t.Fatalf("loaded %v", c)
	}
	c.SetDefaults()
	tr := c.IntakeAccess.TypeRoles
	if got, ok := tr[api.CallType]; !ok || len(got) != 0 || len(tr["SEND_CLAIM_VOTE"]) != 1 {
		t.Fatalf("typeRoles after defaults: %v (call stays refused unless listed)", tr)
	}
	if strings.Contains(fmt.Sprintf("%v %+v", c, c), accessSubmit) {
		t.Fatal("the config prints a token")
	}
}

func TestValidateAccess(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tune  func(*Config)
		field string
	}{
		{"short token", func(c *Config) { c.Principals = []auth.PrincipalConfig{{Principal: "a", Token: "short"}} }, "principals[0].token"},
		{"no token", func(c *Config) { c.Principals = []auth.PrincipalConfig{{Principal: "a"}} }, "principals[0]"},
		{"dup", func(c *Config) {
			c.Principals = []auth.PrincipalConfig{{Principal: "a", Token: accessSubmit}, {Principal: "a", Token: accessRead}}
		}, "principals[1].principal"},
		{"bad role", func(c *Config) {
			c.Principals = []auth.PrincipalConfig{{Principal: "a", Token: accessSubmit, Roles: []auth.Role{"no way"}}}
		}, "principals[0].roles[0]"},
		{"bad type role", func(c *Config) { c.IntakeAccess.TypeRoles = map[string][]auth.Role{"call": {"ADMIN"}} }, "intake.typeRoles.call[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			tc.tune(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.field+":") {
				t.Fatalf("Validate: %v, want an error naming %s", err, tc.field)
			}
			if strings.Contains(err.Error(), accessSubmit) {
				t.Fatalf("the error quotes a token: %v", err)
			}
		})
	}
}

// A node built with principals: its API needs their tokens, its config
// keeps only their hashes, and its logs never print a token.
func TestNodeAccess(t *testing.T) {
	var logs bytes.Buffer
	n, err := Build(context.Background(), Config{Data: t.TempDir(), DevSenders: 1, Principals: accessPrincipals()},
		Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	for _, p := range n.Config.Principals {
		if p.Token != "" || len(p.TokenSHA256) != 64 {
			t.Fatalf("the node's config keeps a token for %s", p.Principal)
		}
	}
	srv := httptest.NewServer(n.Handler)
	t.Cleanup(srv.Close)
	body := `{"queue":"q","type":"CREATE_CLAIM_VOTING_ACCOUNT"}`
	for _, tc := range []struct {
		method, path, body, token string
		status                    int
	}{
		{"POST", "/v1/transactions", body, "", 401},
		{"POST", "/v1/transactions", body, "not-a-token-of-this-node", 401},
		{"POST", "/v1/transactions", body, accessRead, 403},
		{"POST", "/v1/transactions", body, accessSubmit, 201},
		{"POST", "/v1/transactions", `{"queue":"q","type":"call"}`, accessSubmit, 403},
		{"GET", "/v1/queues", "", "", 401},
		{"GET", "/v1/queues", "", accessSubmit, 403},
		{"GET", "/v1/queues", "", accessRead, 200},
		{"GET", "/v1/head", "", "", 401}, // the devchain's reads too
		{"GET", "/v1/head", "", accessRead, 200},
		{"GET", "/metrics", "", "", 401},
		{"GET", "/metrics", "", accessRead, 200},
		{"GET", "/readyz", "", "", 503}, // public: not started, but no 401
	} {
		a := call(t, srv.URL, tc.method, tc.path, tc.body, http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + tc.token}})
		if tc.token == "" {
			a = call(t, srv.URL, tc.method, tc.path, tc.body, http.Header{"Content-Type": {"application/json"}})
		}
		if a.status != tc.status {
			t.Errorf("%s %s with %q: %d %s, want %d", tc.method, tc.path, tc.token, a.status, a.msg, tc.status)
		}
	}
	for _, tok := range []string{accessSubmit, accessRead, "not-a-token-of-this-node"} {
		if strings.Contains(logs.String(), tok) {
			t.Fatalf("the logs print a token:\n%s", logs.String())
		}
	}
}
