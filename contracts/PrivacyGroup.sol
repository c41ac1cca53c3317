// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterRecipient} from "./RouterRecipient.sol";

/// @title PrivacyGroup: the distributed sequencer's base ledger, the EVM twin of devchain's
/// `privacygroup` (seed 003).
/// @notice Named groups, each a committee fixed at deploy, UTXO-style states each spent at
/// most once, and intents (transaction ids) each confirmed at most once, with enough
/// endorsements. The EVM has no ed25519 precompile: a member endorses with a secp256k1 key,
/// registered here at deploy, by signing the intent's EIP-712 digest (`digestOf`). The
/// contract counts endorsements; the ownership rules are every endorser's check before it
/// signs (the distributed sequencer's domain code), not this contract's.
///
/// Every record is one storage slot found by a hash of its key: no method scans a list
/// whose length grows with past entries. A state's data stays off storage: a mint carries
/// it in its event, a confirm only in its calldata (the committee distributes it).
contract PrivacyGroup is RouterRecipient {
    /// A committee member: its node id and the address of its endorsing key.
    struct Member {
        string id;
        address signer;
    }

    /// A state to create: an id new in its group, an optional owner, its data (compact JSON).
    struct State {
        string id;
        string owner;
        string data;
    }

    /// A member's endorsement: its id and its 65-byte signature [R||S||V] over the digest.
    struct Endorsement {
        string member;
        bytes signature;
    }

    /// A group, in one slot.
    struct Group {
        address deployer;
        uint8 threshold;
        uint8 size;
    }

    /// A member's seat, in one slot: its signer and its index (the bit of the duplicate check).
    struct Seat {
        address signer;
        uint8 index;
    }

    /// A state's record, in one slot. A created state has createdAt > 0 (the block + 1, so
    /// that a state of block 0 exists too); a spent one spentAt > 0 likewise.
    struct StateRecord {
        uint64 createdAt;
        uint64 spentAt;
    }

    /// The most members a group has, the longest id, and the most states a call lists.
    uint256 public constant MAX_MEMBERS = 64;
    uint256 public constant MAX_ID = 128;
    uint256 public constant MAX_IO = 64;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant STATE_TYPEHASH = keccak256("State(string id,string owner,string data)");
    bytes32 private constant INTENT_TYPEHASH =
        keccak256("Intent(string group,string txId,string[] spends,State[] creates)State(string id,string owner,string data)");
    /// secp256k1n / 2: a larger s is the malleable twin of a valid signature (EIP-2).
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    mapping(bytes32 group => Group) private groups;
    mapping(bytes32 group => mapping(bytes32 member => Seat)) private seats;
    mapping(bytes32 group => mapping(address signer => bool)) private signers;
    mapping(bytes32 state => StateRecord) private states;
    mapping(bytes32 intent => uint256) private intents; // block + 1 of the confirm

    event GroupDeployed(string group, address deployer, Member[] members, uint8 threshold);
    event StatesMinted(string group, string[] states, State[] minted);
    /// One per confirmed intent; digest is the EIP-712 digest its endorsements signed.
    event IntentConfirmed(string group, string txId, string[] spends, string[] creates, bytes32 digest);

    error GroupExists(string group);
    error NoSuchGroup(string group);
    error NotDeployer(address caller);
    error BadMembers();
    error BadThreshold(uint256 threshold);
    error BadID();
    error TooMany();
    error StateExists(string id);
    error NoSuchState(string id);
    error StateSpent(string id);
    error IntentAlreadyConfirmed(string txId);
    /// Endorsement `index` is not a valid signature (length, v, or a high s).
    error BadSignature(uint256 index);
    /// Endorsement `index` names no member, or its signature is by another key than its member's.
    error WrongSigner(uint256 index);
    /// Endorsement `index` is by a member that endorsed already.
    error DuplicateSigner(uint256 index);
    /// Fewer endorsements than the group's threshold.
    error BelowThreshold(uint256 endorsements, uint256 threshold);
    /// A read of a group, state or intent that does not exist (ordo's ErrNotFound).
    error NotFound(string what);

    constructor(address router) RouterRecipient(router) {}

    /// Deploys `group` (a name never deployed) with `members` (1-MAX_MEMBERS, distinct ids and
    /// signers) and `threshold` endorsements per confirm (0: every member). The caller is
    /// the group's deployer, who alone mints.
    function deploy(string calldata group, Member[] calldata members, uint8 threshold) external {
        bytes32 g = keccak256(bytes(group));
        if (groups[g].size != 0) revert GroupExists(group);
        _checkID(bytes(group));
        uint256 n = members.length;
        if (n == 0 || n > MAX_MEMBERS) revert BadMembers();
        if (threshold == 0) threshold = uint8(n);
        if (threshold > n) revert BadThreshold(threshold);
        for (uint256 i = 0; i < n; i++) {
            Member calldata m = members[i];
            _checkID(bytes(m.id));
            bytes32 id = keccak256(bytes(m.id));
            if (m.signer == address(0) || seats[g][id].signer != address(0) || signers[g][m.signer]) revert BadMembers();
            seats[g][id] = Seat(m.signer, uint8(i));
            signers[g][m.signer] = true;
        }
        address deployer = _msgSender();
        groups[g] = Group(deployer, threshold, uint8(n));
        emit GroupDeployed(group, deployer, members, threshold);
    }

    /// Creates `minted` unspent in `group`: its deployer only, ids never used in the group.
    function mint(string calldata group, State[] calldata minted) external {
        bytes32 g = _group(group);
        if (groups[g].deployer != _msgSender()) revert NotDeployer(_msgSender());
        if (minted.length == 0 || minted.length > MAX_IO) revert TooMany();
        string[] memory ids = new string[](minted.length);
        for (uint256 i = 0; i < minted.length; i++) {
            _create(g, minted[i].id);
            ids[i] = minted[i].id;
        }
        emit StatesMinted(group, ids, minted);
    }

    /// Confirms intent `txId` of `group`: anyone may send it; it needs the threshold of
    /// valid endorsements by distinct members over digestOf(...). All or none, it spends
    /// `spends` (existing, unspent), creates `creates` (ids new in the group) and records the
    /// intent, which is never confirmed again. States created earlier in the same block
    /// are spendable.
    function confirm(
        string calldata group,
        string calldata txId,
        string[] calldata spends,
        State[] calldata creates,
        Endorsement[] calldata endorsements
    ) external {
        bytes32 g = _group(group);
        _checkID(bytes(txId));
        bytes32 ik = keccak256(abi.encode(g, keccak256(bytes(txId))));
        if (intents[ik] != 0) revert IntentAlreadyConfirmed(txId);
        if (spends.length > MAX_IO || creates.length > MAX_IO) revert TooMany();
        bytes32 digest = digestOf(group, txId, spends, creates);
        _endorsed(g, digest, endorsements);
        for (uint256 i = 0; i < spends.length; i++) {
            StateRecord storage s = states[_stateKey(g, spends[i])];
            if (s.createdAt == 0) revert NoSuchState(spends[i]);
            if (s.spentAt != 0) revert StateSpent(spends[i]);
            s.spentAt = uint64(block.number + 1);
        }
        string[] memory ids = new string[](creates.length);
        for (uint256 i = 0; i < creates.length; i++) {
            _create(g, creates[i].id);
            ids[i] = creates[i].id;
        }
        intents[ik] = block.number + 1;
        emit IntentConfirmed(group, txId, spends, ids, digest);
    }

    /// The EIP-712 digest a member signs to endorse an intent: domain (name "OrdoPrivacyGroup",
    /// version "1", this chain and contract) and Intent(group, txId, spends, creates).
    function digestOf(string calldata group, string calldata txId, string[] calldata spends, State[] calldata creates)
        public
        view
        returns (bytes32)
    {
        bytes32[] memory sp = new bytes32[](spends.length);
        for (uint256 i = 0; i < spends.length; i++) {
            sp[i] = keccak256(bytes(spends[i]));
        }
        bytes32[] memory cr = new bytes32[](creates.length);
        for (uint256 i = 0; i < creates.length; i++) {
            State calldata s = creates[i];
            cr[i] = keccak256(
                abi.encode(STATE_TYPEHASH, keccak256(bytes(s.id)), keccak256(bytes(s.owner)), keccak256(bytes(s.data)))
            );
        }
        bytes32 h = keccak256(
            abi.encode(
                INTENT_TYPEHASH,
                keccak256(bytes(group)),
                keccak256(bytes(txId)),
                keccak256(abi.encodePacked(sp)),
                keccak256(abi.encodePacked(cr))
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), h));
    }

    /// The EIP-712 domain separator of this contract on this chain.
    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("OrdoPrivacyGroup"), keccak256("1"), block.chainid, address(this))
        );
    }

    /// A group's deployer, threshold and size; NotFound when never deployed.
    function groupOf(string calldata group) external view returns (address deployer, uint8 threshold, uint8 size) {
        Group memory gr = groups[keccak256(bytes(group))];
        if (gr.size == 0) revert NotFound(group);
        return (gr.deployer, gr.threshold, gr.size);
    }

    /// The signer of a group's member; NotFound when it is none.
    function signerOf(string calldata group, string calldata member) external view returns (address) {
        address s = seats[keccak256(bytes(group))][keccak256(bytes(member))].signer;
        if (s == address(0)) revert NotFound(member);
        return s;
    }

    /// A state's blocks: created in createdAt, spent in spentAt (when spent); NotFound when
    /// the group has no such state.
    function stateOf(string calldata group, string calldata id)
        external
        view
        returns (uint64 createdAt, bool spent, uint64 spentAt)
    {
        StateRecord memory s = states[_stateKey(keccak256(bytes(group)), id)];
        if (s.createdAt == 0) revert NotFound(id);
        if (s.spentAt != 0) return (s.createdAt - 1, true, s.spentAt - 1);
        return (s.createdAt - 1, false, 0);
    }

    /// The block that confirmed an intent; NotFound when it was never confirmed.
    function intentOf(string calldata group, string calldata txId) external view returns (uint256 height) {
        uint256 block1 = intents[keccak256(abi.encode(keccak256(bytes(group)), keccak256(bytes(txId))))];
        if (block1 == 0) revert NotFound(txId);
        return block1 - 1;
    }

    /// Checks the endorsements of digest against group g's committee: each a low-s signature
    /// by the member it names, no member twice, at least the threshold of them.
    function _endorsed(bytes32 g, bytes32 digest, Endorsement[] calldata ends) private view {
        uint256 seen;
        for (uint256 i = 0; i < ends.length; i++) {
            bytes calldata sig = ends[i].signature;
            if (sig.length != 65) revert BadSignature(i);
            bytes32 r = bytes32(sig[0:32]);
            bytes32 s = bytes32(sig[32:64]);
            uint8 v = uint8(sig[64]);
            if (v < 27) v += 27;
            if (v > 28 || uint256(s) > HALF_N) revert BadSignature(i);
            address who = ecrecover(digest, v, r, s);
            if (who == address(0)) revert BadSignature(i);
            Seat memory seat = seats[g][keccak256(bytes(ends[i].member))];
            if (seat.signer == address(0) || seat.signer != who) revert WrongSigner(i);
            uint256 bit = uint256(1) << seat.index;
            if (seen & bit != 0) revert DuplicateSigner(i);
            seen |= bit;
        }
        uint256 need = groups[g].threshold;
        if (ends.length < need) revert BelowThreshold(ends.length, need);
    }

    function _group(string calldata group) private view returns (bytes32 g) {
        g = keccak256(bytes(group));
        if (groups[g].size == 0) revert NoSuchGroup(group);
    }

    function _create(bytes32 g, string calldata id) private {
        _checkID(bytes(id));
        StateRecord storage s = states[_stateKey(g, id)];
        if (s.createdAt != 0) revert StateExists(id);
        s.createdAt = uint64(block.number + 1);
    }

    function _stateKey(bytes32 g, string calldata id) private pure returns (bytes32) {
        return keccak256(abi.encode(g, keccak256(bytes(id))));
    }

    function _checkID(bytes calldata id) private pure {
        if (id.length == 0 || id.length > MAX_ID) revert BadID();
    }
}
