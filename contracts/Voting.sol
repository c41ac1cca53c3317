// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterRecipient} from "./RouterRecipient.sol";

/// @title Voting: the demo's claim voting, as calls through the OrdoRouter.
/// @notice CREATE_CLAIM_VOTING_ACCOUNT is createClaimVotingAccount(account, title);
/// SEND_CLAIM_VOTE is sendClaimVote(account, voter, vote). Each records the
/// account that sent it, as the router reports it (ERC-2771).
contract Voting is RouterRecipient {
    struct Claim {
        address creator;
        uint64 yes;
        uint64 no;
        string title;
    }

    mapping(bytes32 key => Claim) private claims;
    /// How many votes each sending account has cast.
    mapping(address sender => uint256) public votesBy;

    event ClaimVotingAccountCreated(string account, address indexed creator, string title);
    event ClaimVoteSent(string account, address indexed sender, string voter, bool vote);

    /// No claim voting account is named `account`.
    error NotFound(string account);
    /// A claim voting account named `account` exists already.
    error AccountExists(string account);

    constructor(address router) RouterRecipient(router) {}

    /// CREATE_CLAIM_VOTING_ACCOUNT: opens the claim voting account `account`.
    function createClaimVotingAccount(string calldata account, string calldata title) external {
        Claim storage c = claims[keccak256(bytes(account))];
        if (c.creator != address(0)) revert AccountExists(account);
        c.creator = _msgSender();
        c.title = title;
        emit ClaimVotingAccountCreated(account, c.creator, title);
    }

    /// SEND_CLAIM_VOTE: counts `voter`'s vote on the claim `account`.
    function sendClaimVote(string calldata account, string calldata voter, bool vote) external {
        Claim storage c = claims[keccak256(bytes(account))];
        if (c.creator == address(0)) revert NotFound(account);
        if (vote) c.yes++;
        else c.no++;
        address sender = _msgSender();
        votesBy[sender]++;
        emit ClaimVoteSent(account, sender, voter, vote);
    }

    /// The claim voting account `account`: who created it, its title and tally.
    function claim(string calldata account)
        external
        view
        returns (address creator, string memory title, uint64 yes, uint64 no)
    {
        Claim storage c = claims[keccak256(bytes(account))];
        if (c.creator == address(0)) revert NotFound(account);
        return (c.creator, c.title, c.yes, c.no);
    }
}
