package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// Role is a right a principal holds. A role is any name of 1 to 32
// characters from [a-z0-9_-]; RoleAdmin, RoleSubmit and RoleRead are the
// node's own, and engines may check others that operators configure.
type Role string

// The node's roles.
const (
	// RoleAdmin manages the node (creates processors, ...) and implies every
	// other role.
	RoleAdmin Role = "admin"
	// RoleSubmit submits transaction intents (POST /v1/transactions).
	RoleSubmit Role = "submit"
	// RoleRead reads the node's state (GET routes), unless reads are open.
	RoleRead Role = "read"
)

// DevPrincipal is the name every caller has in open (dev) mode.
const DevPrincipal = "dev"

// MinTokenBytes is the shortest token a principal may be given.
const MinTokenBytes = 16

// maxRole and maxName bound a role's and a principal's name, in bytes.
const (
	maxRole = 32
	maxName = 64
)

// ValidRole reports whether r is a role name: 1 to 32 characters from
// [a-z0-9_-].
func ValidRole(r Role) bool {
	if len(r) == 0 || len(r) > maxRole {
		return false
	}
	return allBytes(string(r), func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' })
}

// allBytes reports whether every byte of s satisfies ok.
func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// validName reports whether s is a principal's name: 1 to 64 characters
// from [A-Za-z0-9._@-].
func validName(s string) bool {
	if len(s) == 0 || len(s) > maxName {
		return false
	}
	return allBytes(s, func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '@' || c == '-'
	})
}

// PrincipalConfig is one principal of the node's config: a name, exactly
// one of a token and the SHA-256 of one, and roles. Its String, GoString
// and LogValue never show the token.
type PrincipalConfig struct {
	// Principal is the principal's name, unique in the config: 1 to 64
	// characters from [A-Za-z0-9._@-]. Required.
	Principal string `yaml:"principal"`
	// Token is the bearer token the principal presents, at least 16 bytes
	// (`ordo token` makes one). Defaults to "" (then TokenSHA256 is
	// required).
	Token string `yaml:"token"`
	// TokenSHA256 is the lowercase or uppercase hex of the SHA-256 of the
	// token, so that the config file need not hold the token itself.
	// Defaults to "" (then Token is required).
	TokenSHA256 string `yaml:"tokenSHA256"`
	// Roles are the principal's roles (admin implies every role). Defaults
	// to none: the principal is known (Authenticated routes) and nothing
	// more.
	Roles []Role `yaml:"roles"`
}

// redacted stands for a token in anything printed.
const redacted = "<redacted>"

// String describes p without its token.
func (p PrincipalConfig) String() string {
	tok := ""
	switch {
	case p.Token != "":
		tok = " token=" + redacted
	case p.TokenSHA256 != "":
		tok = " tokenSHA256=" + redacted
	}
	return fmt.Sprintf("{principal=%s%s roles=%v}", p.Principal, tok, p.Roles)
}

// GoString is String, so that %#v does not print the token either.
func (p PrincipalConfig) GoString() string { return p.String() }

// LogValue logs p without its token.
func (p PrincipalConfig) LogValue() slog.Value {
	return slog.GroupValue(slog.String("principal", p.Principal), slog.Any("roles", p.Roles),
		slog.Bool("token", p.Token != ""), slog.Bool("tokenSHA256", p.TokenSHA256 != ""))
}

// Config is who may call the node and what reads need.
type Config struct {
	// Principals are the callers the node knows. Defaults to none (a node
	// outside dev mode then refuses to start).
	Principals []PrincipalConfig `yaml:"principals"`
	// OpenReads, when true, lets anyone call the Read routes without a
	// token. Defaults to false: reads need the role read.
	OpenReads bool `yaml:"openReads"`
	// Open is dev mode: every caller, with or without a header, is the
	// principal "dev" with role admin. Defaults to false. Set by the node
	// from its devMode, never from this struct's YAML.
	Open bool `yaml:"-"`
}

// String describes c without any token.
func (c Config) String() string {
	return fmt.Sprintf("{principals=%v openReads=%t open=%t}", c.Principals, c.OpenReads, c.Open)
}

// GoString is String, so that %#v does not print a token either.
func (c Config) GoString() string { return c.String() }

// LogValue logs c without any token.
func (c Config) LogValue() slog.Value {
	names := make([]string, len(c.Principals))
	for i, p := range c.Principals {
		names[i] = p.Principal
	}
	return slog.GroupValue(slog.Any("principals", names), slog.Bool("openReads", c.OpenReads), slog.Bool("open", c.Open))
}

// hashOf returns the SHA-256 of a principal's token as configured.
func (p PrincipalConfig) hashOf() ([sha256.Size]byte, error) {
	if p.Token != "" {
		return sha256.Sum256([]byte(p.Token)), nil
	}
	var h [sha256.Size]byte
	b, err := hex.DecodeString(p.TokenSHA256)
	if err != nil || len(b) != sha256.Size {
		return h, errors.New("must be the 64 hex digits of a SHA-256 (`ordo token` prints one)")
	}
	copy(h[:], b)
	return h, nil
}

// Validate checks the principals and returns every problem, each naming its
// field as in the YAML file ("principals[1].token"), joined with
// errors.Join. A message never quotes a token.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{field}, args...)...))
	}
	names := map[string]int{}
	hashes := map[[sha256.Size]byte]int{}
	for i, p := range c.Principals {
		field := fmt.Sprintf("principals[%d]", i)
		switch {
		case p.Principal == "":
			bad(field+".principal", "is required")
		case !validName(p.Principal):
			bad(field+".principal", "%q is not a name: 1 to %d characters from A-Z a-z 0-9 . _ @ -", excerpt(p.Principal), maxName)
		default:
			if j, dup := names[p.Principal]; dup {
				bad(field+".principal", "%s is already principals[%d]; names must be unique", p.Principal, j)
			}
			names[p.Principal] = i
		}
		switch {
		case p.Token == "" && p.TokenSHA256 == "":
			bad(field, "needs a token or a tokenSHA256 (`ordo token` makes both)")
		case p.Token != "" && p.TokenSHA256 != "":
			bad(field, "has both a token and a tokenSHA256; give one")
		case p.Token != "" && len(p.Token) < MinTokenBytes:
			bad(field+".token", "must be at least %d bytes, got %d (`ordo token` makes a random one)", MinTokenBytes, len(p.Token))
		case p.Token != "" && strings.ContainsAny(p.Token, " \t\r\n"):
			bad(field+".token", "must not contain spaces or line breaks")
		default:
			h, err := p.hashOf()
			if err != nil {
				bad(field+".tokenSHA256", "%v", err)
				break
			}
			if j, dup := hashes[h]; dup {
				bad(field, "has the same token as principals[%d]; each principal needs its own", j)
			}
			hashes[h] = i
		}
		for k, r := range p.Roles {
			if !ValidRole(r) {
				bad(fmt.Sprintf("%s.roles[%d]", field, k), "%q is not a role: 1 to %d characters from a-z 0-9 _ -", excerpt(string(r)), maxRole)
			}
		}
	}
	return errors.Join(errs...)
}

// excerpt cuts s to 32 bytes for an error message.
func excerpt(s string) string {
	if len(s) <= 32 {
		return s
	}
	return s[:32] + "…"
}

// Hashed returns c with each token replaced by its SHA-256, so that a
// config kept in memory (the node's) holds no token.
func (c Config) Hashed() Config {
	out := c
	out.Principals = make([]PrincipalConfig, len(c.Principals))
	for i, p := range c.Principals {
		if p.Token != "" {
			h := sha256.Sum256([]byte(p.Token))
			p.Token, p.TokenSHA256 = "", hex.EncodeToString(h[:])
		}
		p.Roles = slices.Clone(p.Roles)
		out.Principals[i] = p
	}
	return out
}

// TokenSHA256 returns the hex SHA-256 of token: the tokenSHA256 of a
// principal whose token it is.
func TokenSHA256(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// Principal is an authenticated caller.
type Principal struct {
	// Name is the principal's configured name ("dev" in open mode).
	Name string
	// Roles are its roles, as configured.
	Roles []Role
}

// Has reports whether p holds role r; admin holds every role.
func (p Principal) Has(r Role) bool {
	return slices.Contains(p.Roles, RoleAdmin) || slices.Contains(p.Roles, r)
}

// HasAny reports whether p holds one of roles (none: false).
func (p Principal) HasAny(roles []Role) bool {
	return slices.ContainsFunc(roles, p.Has)
}

// Sentinel errors of Authenticate.
var (
	// ErrNoCredentials: no Authorization header, or one that is not
	// "Bearer <token>".
	ErrNoCredentials = errors.New("no credentials: send the header Authorization: Bearer <token>")
	// ErrUnknownToken: a bearer token that no principal has.
	ErrUnknownToken = errors.New("the bearer token is not one this node knows")
)

// entry is a configured principal as kept in memory: its token's hash only.
type entry struct {
	hash      [sha256.Size]byte
	principal Principal
}

// Authenticator tells who a request comes from. It keeps only the SHA-256
// of each token. It is safe for concurrent use.
type Authenticator struct {
	entries   []entry
	openReads bool
	open      bool
}

// New returns an Authenticator for c, which must be valid (Validate).
func New(c Config) (*Authenticator, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	a := &Authenticator{openReads: c.OpenReads, open: c.Open}
	for _, p := range c.Principals {
		h, _ := p.hashOf() // checked by Validate
		a.entries = append(a.entries, entry{hash: h, principal: Principal{Name: p.Principal, Roles: slices.Clone(p.Roles)}})
	}
	return a, nil
}

// Open reports whether the authenticator is in open (dev) mode.
func (a *Authenticator) Open() bool { return a.open }

// OpenReads reports whether Read routes need no token.
func (a *Authenticator) OpenReads() bool { return a.openReads }

// Principals returns how many principals are configured.
func (a *Authenticator) Principals() int { return len(a.entries) }

// ByName returns the configured principal called name (in open mode, the
// dev principal for any name): how a node checks the principal another
// node forwards an intent for (issue 12), authenticated by that node.
func (a *Authenticator) ByName(name string) (Principal, bool) {
	if a.open {
		return devPrincipal(), true
	}
	for _, e := range a.entries {
		if e.principal.Name == name {
			return e.principal, true
		}
	}
	return Principal{}, false
}

// devPrincipal is every caller in open mode.
func devPrincipal() Principal { return Principal{Name: DevPrincipal, Roles: []Role{RoleAdmin}} }

// Authenticate returns the principal r comes from, by its header
// Authorization: Bearer <token>. In open mode every request is the
// principal "dev" with role admin, header or not. Otherwise a missing or
// malformed header is ErrNoCredentials and a token no principal has
// ErrUnknownToken.
func (a *Authenticator) Authenticate(r *http.Request) (Principal, error) {
	if a.open {
		return devPrincipal(), nil
	}
	vs := r.Header.Values("Authorization")
	if len(vs) != 1 {
		return Principal{}, ErrNoCredentials
	}
	tok, ok := ParseBearer(vs[0])
	if !ok {
		return Principal{}, ErrNoCredentials
	}
	return a.lookup(tok)
}

// compare is subtle.ConstantTimeCompare; a test counts its calls.
var compare = subtle.ConstantTimeCompare

// lookup finds the principal whose token is tok. It hashes tok and compares
// the hash with every configured hash in constant time, without stopping at
// a match, so the time taken says nothing about which principal (or how
// much of a hash) matched.
func (a *Authenticator) lookup(tok string) (Principal, error) {
	h := sha256.Sum256([]byte(tok))
	found := -1
	for i := range a.entries {
		eq := compare(h[:], a.entries[i].hash[:])
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 {
		return Principal{}, ErrUnknownToken
	}
	p := a.entries[found].principal
	p.Roles = slices.Clone(p.Roles)
	return p, nil
}

// ParseBearer returns the token of an Authorization header value "Bearer
// <token>" (the scheme in any case, one or more spaces after it, no space
// nor control character in the token), and whether v is one.
func ParseBearer(v string) (string, bool) {
	scheme, rest, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok := strings.TrimLeft(rest, " ")
	if tok == "" {
		return "", false
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c == 0x7f {
			return "", false
		}
	}
	return tok, true
}

// ctxKey is the context key of the principal.
type ctxKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// PrincipalFrom returns the principal ctx carries: the one the Router
// authenticated. ok is false on a Public route and on an open Read route.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}
