package sequencer

import (
	"errors"
	"fmt"
	"strings"
)

// The engines' own intents and namespaces (issue 24). The node's engines
// submit through the same intake as applications, each under a reserved
// principal: its idempotency keys are its own, and only it may use the
// queues and keys of its namespace. A configured principal's name never
// holds a colon (auth's names are [A-Za-z0-9._@-]), so no caller of the
// public intake can be an engine.

// EnginePrincipalPrefix starts every engine's reserved principal.
const EnginePrincipalPrefix = "engine:"

// The engines' reserved principals.
const (
	// PrincipalProcessor submits the processor's executions.
	PrincipalProcessor = EnginePrincipalPrefix + "processor"
	// PrincipalLeader submits the leader's results.
	PrincipalLeader = EnginePrincipalPrefix + "leader"
	// PrincipalDistseq submits the distributed sequencer's dispatches and
	// the node's entry in the chain's nodes registry.
	PrincipalDistseq = EnginePrincipalPrefix + "distseq"
	// PrincipalSMM submits the state machine manager's replica-set
	// updates.
	PrincipalSMM = EnginePrincipalPrefix + "smm"
)

// IsEnginePrincipal reports whether p is an engine's reserved principal.
func IsEnginePrincipal(p string) bool { return strings.HasPrefix(p, EnginePrincipalPrefix) }

// ReservedPrefixes are the engines' namespaces: a queue name or an
// idempotency key that starts with one of them is an engine's. The
// leader's channels (leader/<i>, pinned to the senders holding its caps,
// keys leader/<walk>/<n>), the processor's lanes (processor/<name>[/<i>]),
// the distributed sequencer's pipelines (distseq/<contract>), the node's
// registration (queue nodes/<id>, key nodes/register/<id>/<seq>) and the
// state machine manager's replica-set updates (queue smm/replicasets,
// keys replicasets/<queue>/…).
var ReservedPrefixes = []string{"leader/", "processor/", "distseq/", "nodes/", "smm/", "replicasets/"}

// ErrReserved is returned by Submit, and CheckReserved, for an intent of
// a principal that is not an engine's whose queue or idempotency key is
// in an engine's namespace.
var ErrReserved = errors.New("reserved for the node's engines")

// CheckReserved refuses (ErrReserved) an intent whose queue or
// idempotency key starts with one of ReservedPrefixes: what the public
// intake may not use. The error names the field and the prefix, never
// the whole value.
func CheckReserved(it Intake) error {
	for _, f := range []struct{ name, v string }{{"queue", it.Queue}, {"idempotencyKey", it.IdempotencyKey}} {
		for _, p := range ReservedPrefixes {
			if strings.HasPrefix(f.v, p) {
				return fmt.Errorf("%w: %s starts with %q, a namespace of the node's engines; choose another %s", ErrReserved, f.name, p, f.name)
			}
		}
	}
	return nil
}
