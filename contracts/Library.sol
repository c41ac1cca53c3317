// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterRecipient} from "./RouterRecipient.sol";

/// @title Library: the processor's test target, the EVM twin of devchain's `library`.
/// @notice Methods a caller configures to fail, to exercise the processor's retries
/// (seed 002), and `confirm`, which emits the CallbackConfirmation the processor reads.
/// It is a dev tool: anyone may configure any method.
///
/// A reverted frame keeps no writes, and the router runs an intent's calls all or none.
/// So a call that fails by reverting cannot count its own failure. Failures come in two
/// kinds:
///   hard  `act(method)` reverts. Nothing of it persists but the router's IntentFailed
///         event, which is where hard failures are counted. `act` fails while the block
///         is below the method's `failUntil`, and while its `failTimes` countdown has
///         failures left; a hard failure never spends the countdown.
///   soft  `actConfirmed(method, execution)` never reverts. It numbers its calls per
///         execution (1, 2, ...: the processor's attempts, one call each), spends one
///         failure of the countdown when one is left, and reports the outcome as
///         CallbackConfirmation(execution + "/" + n, ok): the processor's execution id.
///         The countdown, the count and the numbering persist.
contract Library is RouterRecipient {
    /// How a method behaves, in one storage slot.
    struct Setting {
        uint64 failTimes; // soft failures configured
        uint64 failed; // soft failures spent
        uint64 failUntil; // every call fails in blocks below it
        uint64 configuredAt; // the block of the configure in force; 0: never
    }

    /// The reason of a configured failure when configure gave none.
    string public constant DEFAULT_REASON = "configured failure";

    mapping(bytes32 method => Setting) private settings;
    mapping(bytes32 method => string) private reasons;
    mapping(bytes32 method => uint256) private successes;
    mapping(bytes32 execution => uint256) private calls;

    event Configured(string method, uint64 failTimes, uint64 failUntil, string failReason);
    /// A successful call of `method`, its `count`-th, sent by `from`.
    event Called(string method, uint256 count, address indexed from);
    /// A soft failure of `method`, with `failuresLeft` still to come.
    event SoftFailure(string method, string reason, uint64 failuresLeft);
    /// A callback confirmation: what the processor waits for (data {executionId, success}).
    event CallbackConfirmation(string executionId, bool success);

    /// `method` fails in blocks below `failUntil`.
    error NotReady(string method, uint64 failUntil);
    /// `method` is configured to fail (its countdown has failures left).
    error ConfiguredFailure(string method, string reason);

    constructor(address router) RouterRecipient(router) {}

    /// Sets how `method` behaves from now on, restarting its countdown: it fails
    /// `failTimes` times (soft) and in every block below `failUntil`. An empty
    /// `failReason` is DEFAULT_REASON.
    function configure(string calldata method, uint64 failTimes, uint64 failUntil, string calldata failReason) external {
        bytes32 k = keccak256(bytes(method));
        settings[k] = Setting(failTimes, 0, failUntil, uint64(block.number));
        if (bytes(failReason).length > 0 || bytes(reasons[k]).length > 0) reasons[k] = failReason;
        emit Configured(method, failTimes, failUntil, failReason);
    }

    /// A hard library method: reverts NotReady below failUntil, ConfiguredFailure while
    /// the countdown has failures left; else counts a success.
    function act(string calldata method) external {
        bytes32 k = keccak256(bytes(method));
        Setting memory s = settings[k];
        if (block.number < s.failUntil) revert NotReady(method, s.failUntil);
        if (s.failed < s.failTimes) revert ConfiguredFailure(method, _reason(k));
        _succeed(k, method);
    }

    /// A soft library method for a non-atomic action whose callback confirmation names
    /// this contract: `execution` is the processor's execution id without its attempt
    /// (`<processor>/<batch>/<action>`). Never reverts.
    function actConfirmed(string calldata method, string calldata execution) external {
        bytes32 k = keccak256(bytes(method));
        uint256 n = ++calls[keccak256(bytes(execution))];
        string memory id = string.concat(execution, "/", _decimal(n));
        Setting storage s = settings[k];
        bool ok = block.number >= s.failUntil;
        if (ok && s.failed < s.failTimes) {
            ok = false;
            s.failed++;
        }
        if (ok) {
            _succeed(k, method);
        } else {
            emit SoftFailure(method, _reason(k), s.failTimes - s.failed);
        }
        emit CallbackConfirmation(id, ok);
    }

    /// Emits CallbackConfirmation(executionId, success), as devchain's library.confirm.
    function confirm(string calldata executionId, bool success) external {
        emit CallbackConfirmation(executionId, success);
    }

    /// The successful calls of `method`.
    function count(string calldata method) external view returns (uint256) {
        return successes[keccak256(bytes(method))];
    }

    /// The calls of actConfirmed for `execution` so far (its last attempt's number).
    function attempts(string calldata execution) external view returns (uint256) {
        return calls[keccak256(bytes(execution))];
    }

    /// The setting in force for `method`, with the soft failures it has left.
    function setting(string calldata method)
        external
        view
        returns (uint64 failTimes, uint64 failuresLeft, uint64 failUntil, uint64 configuredAt, string memory failReason)
    {
        bytes32 k = keccak256(bytes(method));
        Setting memory s = settings[k];
        return (s.failTimes, s.failTimes - s.failed, s.failUntil, s.configuredAt, _reason(k));
    }

    function _succeed(bytes32 k, string calldata method) private {
        uint256 n = ++successes[k];
        emit Called(method, n, _msgSender());
    }

    function _reason(bytes32 k) private view returns (string memory) {
        string memory r = reasons[k];
        return bytes(r).length > 0 ? r : DEFAULT_REASON;
    }

    /// `n` in decimal.
    function _decimal(uint256 n) private pure returns (string memory) {
        if (n == 0) return "0";
        uint256 len;
        for (uint256 m = n; m != 0; m /= 10) len++;
        bytes memory b = new bytes(len);
        for (; n != 0; n /= 10) b[--len] = bytes1(uint8(48 + (n % 10)));
        return string(b);
    }
}
