// Package gen builds the node's API documents: the OpenAPI document from
// a node with every engine on (apitest.Start, with the dashboard's routes
// (internal/ui), which node.Build mounts too: its router's routes and
// rules, apidoc.Ops, and the statuses its servers give each error code),
// the OpenRPC document from ptx.Methods and apidoc.RPCMethods. The generator
// (internal/apidoc/cmd/apidoc) writes them; the tests compare them with
// the committed copies in apispec.
package gen

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/apidoc"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/ui"
)

// errorOf is an httpjson.Server's mapping of errors to statuses.
type errorOf interface {
	ErrorOf(err error) (int, httpjson.ErrorDetail)
}

// Routes starts a node with every engine on, without running it, and
// returns its router's routes and the status of each error code on a
// route.
func Routes() ([]auth.RouteInfo, apidoc.StatusOf, error) {
	n, err := apitest.Start(apitest.Options{NoRun: true, Engines: []api.Routes{ui.Routes{}}, Principals: []auth.PrincipalConfig{{Principal: "gen", Token: "gen-token-0123456789abcdef", Roles: []auth.Role{auth.RoleAdmin}}}})
	if err != nil {
		return nil, nil, err
	}
	routes := n.Router.Routes()
	node := n.Router.Server()
	if err := n.Close(); err != nil {
		return nil, nil, err
	}
	dc, ok := devchain.NewHandler(nil, devchain.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))).(errorOf)
	if !ok {
		return nil, nil, fmt.Errorf("gen: the devchain's handler does not map errors to statuses")
	}
	status := func(op apidoc.Op, code string) int {
		var src errorOf = node
		if op.Devchain && code != auth.CodeUnauthenticated && code != auth.CodeForbidden {
			src = dc
		}
		st, _ := src.ErrorOf(httpjson.Errorf(code, "%s", code))
		if st == 0 {
			st = http.StatusInternalServerError
		}
		return st
	}
	return routes, status, nil
}

// OpenAPI is the OpenAPI document of the node's routes.
func OpenAPI() ([]byte, error) {
	routes, status, err := Routes()
	if err != nil {
		return nil, err
	}
	return apidoc.Build(routes, apidoc.Ops, status)
}

// OpenRPC is the OpenRPC document of the ptx_ methods.
func OpenRPC() ([]byte, error) { return apidoc.BuildOpenRPC(ptx.Methods, apidoc.RPCMethods) }
