// Package contracts holds ordo's EVM contracts as built from contracts/*.sol:
// one artifact per deployable contract (<Name>.json: ABI, creation and runtime
// bytecode, compiler and settings, the sha256 of its sources) and its abigen v2
// binding (<name>_abigen.go).
//
// Invariants:
//   - Every file here but this one, artifacts.go and the tests is written by
//     scripts/contracts/gen.sh and committed: building ordo needs no npm.
//   - An artifact records the sha256 of each source file it was compiled from
//     and of the toolchain's files (compile.js, gen.sh, package-lock.json);
//     TestArtifactsMatchSources fails when any of them changed since, and when
//     a binding's ABI or bytecode differs from its artifact's.
//   - OrdoRouter applies an intent (execute(memo, calls)) at most once per uid
//     = keccak256(memo), only for an authorized submitter, its calls all or
//     none, and reports the outcome as an event (docs/evm-contracts.md).
//   - Library, the processor's test target, counts a failure only where it
//     persists: act's failures revert (the router's IntentFailed counts
//     them) and never spend its countdown; actConfirmed's failures do not
//     revert, spend the countdown and are reported as CallbackConfirmation
//     events carrying the processor's execution id.
//   - Workflow (the leader's walks) keeps one result per walk, from an
//     account holding a leader cap as the router forwards it; ToolRegistry
//     lets only a tool's registrant change it and never repeats a name's
//     version. Both refuse with devchain's reasons as Error(string).
//   - NodeRegistry binds a node id to the account of its first register
//     and checks the id is SHA-256(public key)'s first 20 bytes; only that
//     account changes or removes the entry, seqs only grow; the node's
//     ed25519 signature is stored opaquely, for peers to verify.
//   - ReplicaSets moves a queue's set on by one version per update; an
//     update names the version it replaces and comes from the account of a
//     member (of the new primary for a new queue), every member registered.
//   - No write's cost grows with the number of past entries.
package contracts
