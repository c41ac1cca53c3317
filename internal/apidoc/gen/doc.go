// Package gen builds the node's API documents: the OpenAPI document from
// a node with every engine on (apitest.Start, with the dashboard's routes
// (internal/ui), which node.Build mounts too: its router's routes and
// rules, apidoc.Ops, and the statuses its servers give each error code),
// the OpenRPC document from ptx.Methods and apidoc.RPCMethods. The generator
// (internal/apidoc/cmd/apidoc) writes them; the tests compare them with
// the committed copies in apispec.
//
// Invariants: the documents are deterministic (maps sorted, no time or
// host in them); every route the router registers is in the OpenAPI
// document and every documented route is registered, but for the
// exemptions apidoc names with their reason.
package gen
