// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title RouterRecipient: ERC-2771 for targets of the OrdoRouter.
/// @notice The router appends the submitting account's 20-byte address to each
/// call's calldata. `_msgSender()` returns that suffix when, and only when, the
/// caller is the one trusted router; any other caller is its own msg.sender, and a
/// suffix it appends is ignored. A contract that inherits this must not offer a
/// self-delegatecall multicall: a delegatecall keeps msg.sender (the router) and
/// would let one call's caller choose the suffix of another.
abstract contract RouterRecipient {
    /// The only forwarder whose appended sender is believed.
    address public immutable trustedRouter;

    constructor(address router) {
        trustedRouter = router;
    }

    /// ERC-2771: whether `forwarder` is the trusted router.
    function isTrustedForwarder(address forwarder) public view returns (bool) {
        return forwarder == trustedRouter;
    }

    /// The account on whose behalf this call runs.
    function _msgSender() internal view returns (address sender) {
        if (msg.sender == trustedRouter && msg.data.length >= 20) {
            return address(bytes20(msg.data[msg.data.length - 20:]));
        }
        return msg.sender;
    }
}
