package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// Routes is an engine's part of the node's API: Register mounts its routes
// on the node's router, each with its rule (auth.Router.Handle and
// HandleJSON take one), so that no route of the node goes unchecked.
type Routes interface {
	Register(r *auth.Router)
}

// RoutesFunc adapts a function to Routes.
type RoutesFunc func(r *auth.Router)

// Register calls f(r).
func (f RoutesFunc) Register(r *auth.Router) { f(r) }

// CallType is the generic contract-call transaction type engines submit in
// process; DefaultTypeRoles keeps it from every API caller.
const CallType = "call"

// DefaultTypeRoles is Options.TypeRoles' default: the generic contract-call
// type is refused to every API caller (engines submit it in process, through
// sequencer.Node.Submit), so that a caller with submit cannot make the node
// sign another engine's calls.
func DefaultTypeRoles() map[string][]auth.Role {
	return map[string][]auth.Role{CallType: {}}
}

// checkType refuses (403 type_forbidden) an intent whose type the caller's
// roles do not allow (Options.TypeRoles).
func (s *server) checkType(r *http.Request, typ string) error {
	roles, listed := s.typeRoles[typ]
	if !listed {
		return nil
	}
	p, _ := auth.PrincipalFrom(r.Context())
	if p.HasAny(roles) {
		return nil
	}
	name := sequencer.Excerpt(typ)
	if len(roles) == 0 {
		return httpjson.Errorf(CodeTypeForbidden, "type %s is not accepted from API callers (engines submit it inside the node); "+
			"an operator allows it for a role with intake.typeRoles in the node's config, such as typeRoles: {%s: [admin]}", name, name)
	}
	rs := make([]string, len(roles))
	for i, r := range roles {
		rs[i] = string(r)
	}
	return httpjson.Errorf(CodeTypeForbidden, "type %s is accepted only from a principal with one of the roles %s (intake.typeRoles in the node's config); principal %s has none of them",
		name, strings.Join(rs, ", "), p.Name)
}

// devchainDevRoutes are the in-process devchain's routes that change the
// chain or reach its dev keys: served on the node's port only in dev mode
// (else the devchain answers them 403 read_only).
var devchainDevRoutes = []string{
	"POST /v1/tx",
	"GET /v1/faults",
	"PUT /v1/faults",
	"POST /v1/faucet",
	"GET /v1/dev/accounts",
	"POST /v1/dev/mine",
}

// DevchainRoutes mounts h, the in-process devchain's API
// (devchain.NewHandler), on the node's router: its reads
// (devchain.ReadRoutes) behind auth.Read, its dev routes (submitting raw
// transactions, the fault knobs, the faucet, the dev accounts, mining)
// behind auth.Need(admin). In dev mode every caller is an admin, so all are
// open; outside it the node builds h ReadOnly, and its dev routes answer an
// admin 403 read_only.
func DevchainRoutes(h http.Handler) Routes {
	return RoutesFunc(func(r *auth.Router) {
		for _, p := range DevchainPatterns() {
			rule := auth.Read
			if slices.Contains(devchainDevRoutes, p) {
				rule = auth.Need(auth.RoleAdmin)
			}
			r.Handle(p, rule, h)
		}
	})
}

// DevchainPatterns are the devchain routes DevchainRoutes mounts: its reads
// then its dev routes.
func DevchainPatterns() []string {
	return slices.Concat(devchain.ReadRoutes, devchainDevRoutes)
}
