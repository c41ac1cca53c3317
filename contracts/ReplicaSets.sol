// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterRecipient} from "./RouterRecipient.sol";
import {NodeRegistry} from "./NodeRegistry.sol";

/// @title ReplicaSets: each replicated queue's primary and secondaries (seed 004), the
/// EVM twin of devchain's `replicasets`.
/// @notice A queue's set has a version that each update moves on by one. An update
/// names the version it replaces (0: the queue has none yet) and its signer, a node id
/// whose account in the NodeRegistry must be the sender (the router's submitter,
/// ERC-2771). The signer must be a member of the set it replaces, or the new primary
/// of a new queue; every member must be registered. `updateMany` applies many queues'
/// updates in one call, each as `update` would, and reports each refusal as an event.
///
/// Work per call is bounded (at most MAX_SECONDARIES + 2 registry reads per update,
/// MAX_BATCH updates per call): no cost grows with the number of queues.
contract ReplicaSets is RouterRecipient {
    /// A queue's set as stored.
    struct Set {
        bytes20 primary;
        uint64 version; // the updates so far; 0: none
        bytes20 updatedBy;
        uint64 height; // the block of the last update
        bytes20[] secondaries;
    }

    /// An update of one queue's set.
    struct Update {
        string queue;
        bytes20 primary;
        bytes20[] secondaries;
        uint64 replaces; // the version it replaces
        bytes20 signer; // its account is the sender
    }

    /// A queue's set as read.
    struct ReplicaSet {
        string queue;
        bytes20 primary;
        bytes20[] secondaries;
        uint64 version;
        bytes20 updatedBy;
        uint64 height;
    }

    /// The longest queue name, in bytes (the sequencer's limit).
    uint256 public constant MAX_QUEUE = 128;
    /// The most secondaries a set names.
    uint256 public constant MAX_SECONDARIES = 8;
    /// The most updates one updateMany takes.
    uint256 public constant MAX_BATCH = 64;
    /// The most sets one page read returns.
    uint256 public constant MAX_PAGE = 256;

    NodeRegistry public immutable registry;

    mapping(bytes32 queue => Set) private stored;
    /// A queue's position in `queues`, plus one (0: none).
    mapping(bytes32 queue => uint256) private positions;
    /// Every queue with a set, in the order of its first update.
    string[] private queues;

    event ReplicaSetUpdated(string queue, bytes20 primary, bytes20[] secondaries, uint64 version, bytes20 updatedBy);
    /// An update of an updateMany refused, with the reason `update` gives.
    event ReplicaSetRefused(string queue, uint64 replaces, bytes20 signer, string reason);

    /// An update refused; `reason` is devchain's word for it (stale_replica_set,
    /// not_a_member, unknown_node, not_the_signer, bad_update).
    error Refused(string queue, string reason);
    /// A read of a queue without a set.
    error NotFound(string queue);

    constructor(address router, NodeRegistry nodes) RouterRecipient(router) {
        registry = nodes;
    }

    /// Applies one update, or reverts Refused.
    function update(Update calldata u) external {
        string memory reason = _refusal(u, _msgSender());
        if (bytes(reason).length > 0) revert Refused(u.queue, reason);
        _apply(u);
    }

    /// Applies 1 to MAX_BATCH updates in order, each on the state the ones before it
    /// left; a refused one emits ReplicaSetRefused and the others go on.
    function updateMany(Update[] calldata us) external {
        if (us.length == 0 || us.length > MAX_BATCH) revert Refused("", "bad_update");
        address sender = _msgSender();
        for (uint256 i = 0; i < us.length; i++) {
            string memory reason = _refusal(us[i], sender);
            if (bytes(reason).length > 0) {
                emit ReplicaSetRefused(us[i].queue, us[i].replaces, us[i].signer, reason);
            } else {
                _apply(us[i]);
            }
        }
    }

    /// The set of `queue`; NotFound when it has none.
    function set(string calldata queue) external view returns (ReplicaSet memory) {
        bytes32 k = keccak256(bytes(queue));
        if (stored[k].version == 0) revert NotFound(queue);
        return _view(queue, stored[k]);
    }

    /// The sets after the queue `after` ("": from the first), at most `limit` (at most
    /// MAX_PAGE), in the order of their first update; `next` is the last one's queue
    /// when more follow, else "".
    function sets(string calldata after_, uint256 limit)
        external
        view
        returns (ReplicaSet[] memory items, string memory next)
    {
        uint256 start;
        if (bytes(after_).length > 0) {
            start = positions[keccak256(bytes(after_))];
            if (start == 0) revert NotFound(after_);
        }
        if (limit == 0 || limit > MAX_PAGE) limit = MAX_PAGE;
        uint256 end = start + limit;
        if (end > queues.length) end = queues.length;
        items = new ReplicaSet[](end - start);
        for (uint256 i = start; i < end; i++) {
            items[i - start] = _view(queues[i], stored[keccak256(bytes(queues[i]))]);
        }
        if (end < queues.length && items.length > 0) next = queues[end - 1];
    }

    /// How many queues have a set.
    function count() external view returns (uint256) {
        return queues.length;
    }

    /// Why `u` from `sender` is refused on the current state; "" when it is not.
    function _refusal(Update calldata u, address sender) private view returns (string memory) {
        uint256 n = bytes(u.queue).length;
        if (n == 0 || n > MAX_QUEUE || u.primary == bytes20(0) || u.secondaries.length > MAX_SECONDARIES) {
            return "bad_update";
        }
        for (uint256 i = 0; i < u.secondaries.length; i++) {
            if (u.secondaries[i] == u.primary) return "bad_update";
            for (uint256 j = 0; j < i; j++) {
                if (u.secondaries[j] == u.secondaries[i]) return "bad_update";
            }
        }
        Set storage s = stored[keccak256(bytes(u.queue))];
        if (u.replaces != s.version) return "stale_replica_set";
        address signer = registry.accountOf(u.signer);
        if (signer == address(0)) return "unknown_node";
        if (signer != sender) return "not_the_signer";
        if (s.version == 0 ? u.signer != u.primary : !_member(s, u.signer)) return "not_a_member";
        if (registry.accountOf(u.primary) == address(0)) return "unknown_node";
        for (uint256 i = 0; i < u.secondaries.length; i++) {
            if (registry.accountOf(u.secondaries[i]) == address(0)) return "unknown_node";
        }
        return "";
    }

    function _member(Set storage s, bytes20 id) private view returns (bool) {
        if (s.primary == id) return true;
        for (uint256 i = 0; i < s.secondaries.length; i++) {
            if (s.secondaries[i] == id) return true;
        }
        return false;
    }

    function _apply(Update calldata u) private {
        bytes32 k = keccak256(bytes(u.queue));
        Set storage s = stored[k];
        if (s.version == 0) {
            queues.push(u.queue);
            positions[k] = queues.length;
        }
        s.primary = u.primary;
        s.version += 1;
        s.updatedBy = u.signer;
        s.height = uint64(block.number);
        s.secondaries = u.secondaries;
        emit ReplicaSetUpdated(u.queue, u.primary, u.secondaries, s.version, u.signer);
    }

    function _view(string memory queue, Set storage s) private view returns (ReplicaSet memory) {
        return ReplicaSet(queue, s.primary, s.secondaries, s.version, s.updatedBy, s.height);
    }
}
