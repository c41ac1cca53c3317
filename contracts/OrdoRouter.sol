// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title OrdoRouter: applies each ordo intent at most once, its calls all or none.
/// @notice An intent is `execute(memo, calls)` sent by an authorized submitter (an
/// ordo node's sender account). Its key is `uid = keccak256(bytes(memo))`, one
/// namespace per router: every submitter the owner authorized shares it, so an
/// intent stays at most once when another node (another sender) takes over its
/// queue, and nobody else can submit, so a stranger who copies a pending intent's
/// memo cannot burn its uid.
///
/// The outcome is an event in the receipt, and the transaction does not revert
/// for the intent's own failure:
///   IntentApplied    the calls ran, and the uid is recorded with a hash of them;
///   IntentDuplicate  the uid was applied before with the same calls (taken as applied);
///   IntentConflict   the uid was applied before with other calls (never taken as applied);
///   IntentFailed     call `index` reverted with `reason`; every call was rolled back.
///
/// Each call's target learns the submitter ERC-2771 style: the router appends the
/// submitter's 20-byte address to the calldata, and a target trusts that suffix only
/// when the router is the caller (see RouterRecipient). The router offers no
/// self-delegatecall multicall, the pairing that lets a caller forge the suffix, and
/// refuses calls whose target is itself.
///
/// `executeStrict` runs the same code but reverts instead of emitting anything other
/// than IntentApplied: estimate gas on it (eth_estimateGas searches for the least gas
/// that does not revert, which `execute` would hide behind its try/catch).
contract OrdoRouter {
    /// One call of an intent: `data` (selector and arguments) sent to `target`.
    struct Call {
        address target;
        bytes data;
    }

    /// What `execute` did with an intent.
    enum Outcome {
        Applied,
        Duplicate,
        Conflict,
        Failed
    }

    /// What the router keeps of an applied intent, in one storage slot: the block
    /// that applied it, and the first 24 bytes (192 bits) of its calls' hash.
    struct Record {
        uint64 appliedAt;
        bytes24 callsHash;
    }

    /// The account that authorizes submitters and may hand that right on.
    address public owner;
    /// The accounts allowed to call execute and executeStrict.
    mapping(address submitter => bool) public isSubmitter;
    /// The applied intents, by uid; appliedAt is 0 for an intent never applied.
    mapping(bytes32 uid => Record) public records;

    event IntentApplied(bytes32 indexed uid, address indexed submitter, bytes32 callsHash);
    event IntentDuplicate(bytes32 indexed uid, address indexed submitter, uint64 appliedAt);
    event IntentConflict(bytes32 indexed uid, address indexed submitter, bytes32 callsHash, uint64 appliedAt);
    event IntentFailed(bytes32 indexed uid, address indexed submitter, uint256 index, bytes reason);
    event SubmitterSet(address indexed submitter, bool allowed);
    event OwnerChanged(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error NotSubmitter(address caller);
    error OnlySelf();
    /// Call `index` of the intent reverted with `reason` (executeStrict, and the
    /// internal batch's revert).
    error CallFailed(uint256 index, bytes reason);
    /// The revert reason a call gets when its target is the router itself.
    error TargetIsRouter();
    /// The revert reason a call gets when its target has no code.
    error TargetHasNoCode(address target);
    error IntentAlreadyApplied(bytes32 uid, uint64 appliedAt);
    error IntentConflicts(bytes32 uid, uint64 appliedAt);
    /// The batch ran out of the gas the transaction gave it: the whole transaction
    /// reverts (an intent is never reported failed for a too small gas limit).
    error OutOfGas();

    /// @param submitters the accounts allowed to submit from the start.
    constructor(address[] memory submitters) {
        owner = msg.sender;
        emit OwnerChanged(address(0), msg.sender);
        for (uint256 i = 0; i < submitters.length; i++) {
            isSubmitter[submitters[i]] = true;
            emit SubmitterSet(submitters[i], true);
        }
    }

    /// Allows or stops a submitter.
    function setSubmitter(address submitter, bool allowed) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        isSubmitter[submitter] = allowed;
        emit SubmitterSet(submitter, allowed);
    }

    /// Hands the owner's rights to another account.
    function transferOwnership(address newOwner) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        emit OwnerChanged(owner, newOwner);
        owner = newOwner;
    }

    /// The key of an intent whose memo is `memo`.
    function uidOf(string calldata memo) external pure returns (bytes32) {
        return keccak256(bytes(memo));
    }

    /// The hash of an intent's calls that the router records (its first 24 bytes).
    function callsHashOf(Call[] calldata calls) external pure returns (bytes32) {
        return keccak256(abi.encode(calls));
    }

    /// Applies the intent at most once; its outcome is the event it emits.
    function execute(string calldata memo, Call[] calldata calls) external returns (Outcome) {
        return _execute(memo, calls, false);
    }

    /// As execute, but reverts (CallFailed, IntentAlreadyApplied, IntentConflicts)
    /// where execute would emit IntentFailed, IntentDuplicate or IntentConflict.
    function executeStrict(string calldata memo, Call[] calldata calls) external returns (Outcome) {
        return _execute(memo, calls, true);
    }

    function _execute(string calldata memo, Call[] calldata calls, bool strict) private returns (Outcome) {
        if (!isSubmitter[msg.sender]) revert NotSubmitter(msg.sender);
        bytes32 uid = keccak256(bytes(memo));
        bytes32 callsHash = keccak256(abi.encode(calls));

        Record memory r = records[uid];
        if (r.appliedAt != 0) {
            if (r.callsHash == bytes24(callsHash)) {
                if (strict) revert IntentAlreadyApplied(uid, r.appliedAt);
                emit IntentDuplicate(uid, msg.sender, r.appliedAt);
                return Outcome.Duplicate;
            }
            if (strict) revert IntentConflicts(uid, r.appliedAt);
            emit IntentConflict(uid, msg.sender, callsHash, r.appliedAt);
            return Outcome.Conflict;
        }

        uint256 gasBefore = gasleft();
        try this.applyBatch(uid, callsHash, msg.sender, calls) {
            emit IntentApplied(uid, msg.sender, callsHash);
            return Outcome.Applied;
        } catch (bytes memory reason) {
            // A batch that ran out of gas leaves this frame about 1/64 of the gas it
            // had per call depth (EIP-150): a failure with less than 1/16 left is taken
            // for a too small gas limit, and the transaction reverts.
            if (gasleft() < gasBefore / 16) revert OutOfGas();
            if (strict) {
                assembly ("memory-safe") {
                    revert(add(reason, 32), mload(reason))
                }
            }
            (uint256 index, bytes memory inner) = _decodeCallFailed(reason);
            emit IntentFailed(uid, msg.sender, index, inner);
            return Outcome.Failed;
        }
    }

    /// Records the intent and runs its calls; any call's revert undoes all of it.
    /// Only the router may call it (from `execute`, through try/catch).
    function applyBatch(bytes32 uid, bytes32 callsHash, address submitter, Call[] calldata calls) external {
        if (msg.sender != address(this)) revert OnlySelf();
        // Written first, inside the batch: a failed batch leaves no record, and a
        // call that re-enters execute with the same memo sees a duplicate.
        records[uid] = Record(uint64(block.number), bytes24(callsHash));
        for (uint256 i = 0; i < calls.length; i++) {
            address target = calls[i].target;
            if (target == address(this)) revert CallFailed(i, abi.encodeWithSelector(TargetIsRouter.selector));
            if (target.code.length == 0) revert CallFailed(i, abi.encodeWithSelector(TargetHasNoCode.selector, target));
            (bool ok, bytes memory ret) = target.call(abi.encodePacked(calls[i].data, submitter));
            if (!ok) revert CallFailed(i, ret);
        }
    }

    /// Splits applyBatch's CallFailed(index, reason). Anything else (which the
    /// batch does not raise but for a bug) is reported whole at index
    /// type(uint256).max.
    function _decodeCallFailed(bytes memory reason) private pure returns (uint256 index, bytes memory inner) {
        if (reason.length < 4 || bytes4(reason) != CallFailed.selector) return (type(uint256).max, reason);
        assembly ("memory-safe") {
            // Drop the selector: a bytes value 4 shorter, starting 4 bytes later.
            let n := mload(reason)
            reason := add(reason, 4)
            mstore(reason, sub(n, 4))
        }
        return abi.decode(reason, (uint256, bytes));
    }
}
