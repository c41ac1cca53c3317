// Package evm is ordo's chain seam (package chain) over an EVM chain's
// JSON-RPC, built on go-ethereum's client packages only (ethclient, rpc,
// accounts/abi, accounts/keystore, core/types, crypto): issue 25, "ordo on
// a real EVM chain", for the sequencer of seed 000. docs/evm.md describes
// the mapping.
//
// Backend implements chain.Chain, HeadSubscriber, BlockReader, Identifier,
// SignerProvider and GasEstimator. A transaction with a memo (an intent:
// ordo puts its uid there) is OrdoRouter.execute(memo, calls); without one,
// a direct call of a configured contract.
//
// Invariants:
//   - Addresses are "0x" and 40 lowercase hex digits, hashes "0x" and 64.
//   - Signing (Signer) is pure and deterministic: the same Tx and key give
//     the same EIP-1559 transaction, signature and hash; SendTx rebuilds
//     that transaction from the Tx's fields and refuses a signature that
//     does not recover to From.
//   - Call("intents", "get", {uid}) is the router's record of the uid
//     (records(keccak256(uid))): devchain's IntentRecord, or ErrNotFound
//     for a uid never applied.
//   - An intent's outcome is read from the router's event in its receipt:
//     applied, duplicate (chain.ReasonDuplicateIntent, taken as applied),
//     conflict (never applied), failed with the failing call's index and
//     decoded revert.
//   - A node's refusal of a send maps to the seam's errors through one
//     table (sendErrors); a transport failure stays untyped, for a retry.
//   - Events are read from final blocks only, so a cursor, (height<<24 |
//     log index) + 1, is never reused and no removed log is returned.
//   - Amounts in wei are never cut silently: Account.BalanceExact is the
//     decimal balance, uint64 fields saturate.
//   - PrivacyDigest is PrivacyGroup.digestOf (EIP-712) computed in Go, and
//     SignPrivacy signs what the contract's ecrecover check accepts (65
//     bytes, low s, V 27/28): the distributed sequencer's endorsements.
//   - A failing endpoint (transport error, timeout, HTTP 429) is backed off
//     on the configured clock, and calls move to the next.
package evm
