// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterRecipient} from "./RouterRecipient.sol";

/// @title Workflow: the leader's walks (seed 001), the EVM twin of devchain's `workflow`.
/// @notice Anyone requests a walk (a tool run on an input); a leader, an account holding
/// a leader cap the admin granted, reports its one result. The caller of every method is
/// `_msgSender()`: the submitting account when the OrdoRouter forwards the call (ERC-2771),
/// else msg.sender. The deployer is the admin.
///
/// Refusals revert with Error(string) carrying devchain's reason ("not_admin",
/// "already_reported", ...), so an ordo node reads the same reasons on both chains.
/// Input, output and error are JSON text as the requester and the leader sent it: the
/// contract bounds their size but cannot parse them.
contract Workflow is RouterRecipient {
    /// The longest walk id, in bytes.
    uint256 public constant MAX_WALK_ID = 128;
    /// The largest input, output or error of a walk, in bytes.
    uint256 public constant MAX_WALK_PAYLOAD = 16384;
    /// The most caps one account holds.
    uint256 public constant MAX_LEADER_CAPS = 256;

    /// A walk and its result, as the walk read answers it.
    struct Walk {
        string walk; // the id; empty: never requested
        string tool;
        string input; // JSON text
        address requester;
        uint64 height; // the request's block
        bool reported; // a result is stored: the fields below hold it
        bool ok;
        string output; // JSON text when ok
        string reason; // why not, when not ok (the error of the result)
        address leader;
        uint64 resultHeight;
    }

    /// The account that grants and revokes leader caps.
    address public admin;
    mapping(address leader => uint256) private _caps;
    mapping(bytes32 walk => Walk) private _walks;

    event LeaderCapGranted(address leader, uint256 caps);
    event LeaderCapRevoked(address leader, uint256 caps);
    /// A walk to run: what leaders listen for.
    event RequestWalkExecution(string walk, string tool);
    /// The walk's one result, reported by leader.
    event WalkResult(string walk, bool ok, address leader);

    /// A read of a walk never requested.
    error NotFound(string walk);

    constructor(address router) RouterRecipient(router) {
        admin = msg.sender;
    }

    /// Gives `leader` one more cap (the admin only).
    function grantLeaderCap(address leader) external {
        if (_msgSender() != admin) revert("not_admin");
        uint256 n = _caps[leader];
        if (n >= MAX_LEADER_CAPS) revert("too_many_caps");
        _caps[leader] = ++n;
        emit LeaderCapGranted(leader, n);
    }

    /// Takes one cap back from `leader` (the admin only).
    function revokeLeaderCap(address leader) external {
        if (_msgSender() != admin) revert("not_admin");
        uint256 n = _caps[leader];
        if (n == 0) revert("no_leader_cap");
        _caps[leader] = --n;
        emit LeaderCapRevoked(leader, n);
    }

    /// Requests walk `_walk`, an id never requested before, running `tool` on `input`.
    function request(string calldata _walk, string calldata tool, string calldata input) external {
        _checkWalk(_walk);
        if (!_validToolName(tool)) revert("workflow: tool must be 1-64 characters of [a-z0-9_.-]");
        if (bytes(input).length == 0 || bytes(input).length > MAX_WALK_PAYLOAD) {
            revert("workflow: input is required: any JSON of at most 16384 bytes");
        }
        Walk storage w = _walks[keccak256(bytes(_walk))];
        if (bytes(w.walk).length != 0) revert("walk_exists");
        w.walk = _walk;
        w.tool = tool;
        w.input = input;
        w.requester = _msgSender();
        w.height = uint64(block.number);
        emit RequestWalkExecution(_walk, tool);
    }

    /// Reports the result of `_walk`: ok with `output` (and no error), or not ok with
    /// `_error` (and no output; args key "error"). Only a cap holder, for a walk requested, once.
    function submitResult(string calldata _walk, bool ok, string calldata output, string calldata _error) external {
        _checkWalk(_walk);
        if (ok ? (bytes(output).length == 0 || bytes(_error).length != 0) : (bytes(output).length != 0 || bytes(_error).length == 0)) {
            revert("workflow: a result is {walk, ok: true, output} or {walk, ok: false, error}");
        }
        if (bytes(output).length > MAX_WALK_PAYLOAD) revert("workflow: output must be any JSON of at most 16384 bytes");
        if (bytes(_error).length > MAX_WALK_PAYLOAD) revert("workflow: error must be a string of 1-16384 bytes");
        address from = _msgSender();
        if (_caps[from] == 0) revert("not_leader");
        Walk storage w = _walks[keccak256(bytes(_walk))];
        if (bytes(w.walk).length == 0) revert("no_such_walk");
        if (w.reported) revert("already_reported");
        w.reported = true;
        w.ok = ok;
        if (ok) w.output = output;
        else w.reason = _error;
        w.leader = from;
        w.resultHeight = uint64(block.number);
        emit WalkResult(_walk, ok, from);
    }

    /// The walk `_walk` with its result; NotFound when never requested.
    function walk(string calldata _walk) external view returns (Walk memory) {
        Walk storage w = _walks[keccak256(bytes(_walk))];
        if (bytes(w.walk).length == 0) revert NotFound(_walk);
        return w;
    }

    /// The caps `leader` holds.
    function caps(address leader) external view returns (uint256) {
        return _caps[leader];
    }

    function _checkWalk(string calldata _walk) private pure {
        if (bytes(_walk).length == 0 || bytes(_walk).length > MAX_WALK_ID) {
            revert("workflow: walk must be a string of 1-128 bytes");
        }
    }

    /// 1-64 characters of [a-z0-9_.-], as devchain's ValidToolName.
    function _validToolName(string calldata s) private pure returns (bool) {
        bytes calldata b = bytes(s);
        if (b.length == 0 || b.length > 64) return false;
        for (uint256 i; i < b.length; i++) {
            bytes1 c = b[i];
            if (!((c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "_" || c == "-" || c == ".")) return false;
        }
        return true;
    }
}
