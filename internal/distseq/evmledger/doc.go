// Package evmledger is the distributed sequencer's base ledger on an EVM
// chain: the PrivacyGroup contract (contracts/PrivacyGroup.sol). It gives
// the three things a node wires in place of devchain's privacygroup:
//
//   - Ledger (token.Ledger): the EIP-712 digest the committee signs and
//     the confirm call's args, as the evm backend maps them to the ABI;
//   - Scheme (distseq.Scheme): secp256k1 signatures the contract checks
//     with ecrecover; a member's key is its endorsing address;
//   - DecodeEvent: the contract's events, as the evm backend reads them,
//     as the core's ChainEvents.
//
// A node's endorsing key is derived from its ed25519 identity key
// (EndorsingKey), so a committee needs no other key file and `ordo
// committee deploy --evm` reads the members' addresses from the same
// node.key files.
//
// Invariants:
//   - Ledger.Digest is PrivacyGroup.digestOf for the same chain and
//     contract (evm.PrivacyDigest; a test checks it against the
//     contract);
//   - a signature Scheme.Sign makes is one the contract accepts: 65 bytes,
//     low s, V 27 or 28; Verify accepts only what the contract accepts;
//   - EndorsingKey is a pure function of the identity key.
package evmledger
