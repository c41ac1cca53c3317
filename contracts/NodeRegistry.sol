// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterRecipient} from "./RouterRecipient.sol";

/// @title NodeRegistry: where replicated queues' nodes find each other (seed 004), the
/// EVM twin of devchain's `nodes`.
/// @notice node id -> account, ed25519 public key, TLS certificate fingerprint,
/// endpoint. A node id is the first 20 bytes of SHA-256(ed25519 public key); the
/// contract checks that derivation (SHA-256 is a precompile). The EVM cannot check an
/// ed25519 signature, so the entry carries the node's signature over (chain id, this
/// registry, account, id, fingerprint, endpoint, seq) opaquely, and every peer verifies
/// it before it trusts the entry (docs/replicated-queues.md).
///
/// An id's account is bound by its first register, from that account (the router's
/// submitter, ERC-2771, or a direct caller), and never changes: only that account may
/// change or remove the entry afterwards. A register by anyone else of an id not yet
/// bound binds the id to that account, but its signature cannot verify, so no peer
/// trusts it: at worst it denies the id, it never impersonates it.
///
/// Every write touches a fixed number of storage slots: no cost grows with the
/// number of entries.
contract NodeRegistry is RouterRecipient {
    /// A node's entry as stored: account, seq and registered share one slot.
    struct Entry {
        address account; // bound by the id's first register; never changes
        uint64 seq; // the last register's or deregister's; only grows
        bool registered;
        bytes32 publicKey; // ed25519
        bytes32 fingerprint; // SHA-256 of the TLS certificate's DER
        string endpoint; // host:port
        bytes signature; // ed25519, 64 bytes, verified by peers
    }

    /// A node's entry as read.
    struct Node {
        bytes20 id;
        address account;
        uint64 seq;
        bool registered;
        bytes32 publicKey;
        bytes32 fingerprint;
        string endpoint;
        bytes signature;
    }

    /// The longest endpoint, in bytes (devchain's MaxNodeEndpoint).
    uint256 public constant MAX_ENDPOINT = 255;
    /// The most entries one page read returns.
    uint256 public constant MAX_PAGE = 256;

    mapping(bytes20 id => Entry) private entries;
    /// Every id ever bound, in the order of its first register.
    bytes20[] private ids;
    /// Counts every register and deregister: a sequence that only grows.
    uint64 public sequence;

    event NodeRegistered(
        bytes20 indexed id,
        address indexed account,
        bytes32 publicKey,
        bytes32 fingerprint,
        string endpoint,
        uint64 seq,
        bytes signature,
        uint64 sequence
    );
    event NodeDeregistered(bytes20 indexed id, uint64 seq, uint64 sequence);

    /// A register or deregister refused; `reason` is devchain's word for it
    /// (id_mismatch, stale_seq, no_such_node, not_the_account, bad_entry).
    error Refused(bytes20 id, string reason);
    /// A read of an id that is not registered.
    error NotFound(bytes20 id);

    constructor(address router) RouterRecipient(router) {}

    /// Registers or replaces the entry of `id` from the sender's account; `seq` must
    /// exceed the id's current seq.
    function register(
        bytes20 id,
        bytes32 publicKey,
        bytes32 fingerprint,
        string calldata endpoint,
        uint64 seq,
        bytes calldata signature
    ) external {
        if (bytes20(sha256(abi.encodePacked(publicKey))) != id) revert Refused(id, "id_mismatch");
        uint256 n = bytes(endpoint).length;
        if (n == 0 || n > MAX_ENDPOINT || signature.length != 64) revert Refused(id, "bad_entry");
        Entry storage e = entries[id];
        address sender = _msgSender();
        if (e.account == address(0)) {
            e.account = sender;
            ids.push(id);
        } else if (e.account != sender) {
            revert Refused(id, "not_the_account");
        }
        if (seq <= e.seq) revert Refused(id, "stale_seq");
        e.seq = seq;
        e.registered = true;
        e.publicKey = publicKey;
        e.fingerprint = fingerprint;
        e.endpoint = endpoint;
        e.signature = signature;
        uint64 s = ++sequence;
        emit NodeRegistered(id, sender, publicKey, fingerprint, endpoint, seq, signature, s);
    }

    /// Removes the entry of `id`, from its account; `seq` must exceed its current seq.
    /// The account stays bound and the seq stays, so no older entry comes back.
    function deregister(bytes20 id, uint64 seq) external {
        Entry storage e = entries[id];
        if (!e.registered) revert Refused(id, "no_such_node");
        if (e.account != _msgSender()) revert Refused(id, "not_the_account");
        if (seq <= e.seq) revert Refused(id, "stale_seq");
        e.seq = seq;
        e.registered = false;
        uint64 s = ++sequence;
        emit NodeDeregistered(id, seq, s);
    }

    /// The entry of a registered id; NotFound otherwise.
    function node(bytes20 id) external view returns (Node memory) {
        if (!entries[id].registered) revert NotFound(id);
        return _node(id);
    }

    /// The account of a registered id; zero when it is not registered.
    function accountOf(bytes20 id) external view returns (address) {
        Entry storage e = entries[id];
        return e.registered ? e.account : address(0);
    }

    /// The id's current seq (0 if it never registered) and whether it is registered.
    function nodeSeq(bytes20 id) external view returns (uint64 seq, bool registered) {
        Entry storage e = entries[id];
        return (e.seq, e.registered);
    }

    /// How many ids were ever bound (registered or not now).
    function count() external view returns (uint256) {
        return ids.length;
    }

    /// The entries of ids start.. (at most `limit`, at most MAX_PAGE), registered or
    /// not, in the order of their first register.
    function page(uint256 start, uint256 limit) external view returns (Node[] memory) {
        if (limit > MAX_PAGE) limit = MAX_PAGE;
        uint256 end = start + limit;
        if (end > ids.length) end = ids.length;
        if (start >= end) return new Node[](0);
        Node[] memory out = new Node[](end - start);
        for (uint256 i = start; i < end; i++) out[i - start] = _node(ids[i]);
        return out;
    }

    function _node(bytes20 id) private view returns (Node memory) {
        Entry storage e = entries[id];
        return Node(id, e.account, e.seq, e.registered, e.publicKey, e.fingerprint, e.endpoint, e.signature);
    }
}
