// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RouterRecipient} from "./RouterRecipient.sol";

/// @title ToolRegistry: the tools a leader invokes (seed 001), the EVM twin of devchain's
/// `registry`.
/// @notice A tool is a name, the URL it is served at and the JSON Schemas of its input and
/// output. Anyone registers a name nobody holds; only its registrant replaces or removes it.
/// Every change of a name (register, re-register, deregister) raises its version by one and
/// the count survives a deregister: versions of a name never repeat. The caller is
/// `_msgSender()` (ERC-2771 through the OrdoRouter). Refusals revert with Error(string)
/// carrying devchain's reason; schemas are JSON text whose content the leader checks.
contract ToolRegistry is RouterRecipient {
    /// The longest tool name, URL and schema, in bytes; the most tools registered at once.
    uint256 public constant MAX_TOOL_NAME = 64;
    uint256 public constant MAX_TOOL_URL = 2048;
    uint256 public constant MAX_TOOL_SCHEMA = 16384;
    uint256 public constant MAX_TOOLS = 1024;

    /// A registered tool, as the tool read answers it.
    struct Tool {
        string tool;
        string url;
        string inputSchema; // JSON text of an object
        string outputSchema;
        address owner; // the registrant; zero: not registered
        uint64 version; // the changes of the name, this registration included
    }

    mapping(bytes32 name => Tool) private _tools;
    mapping(bytes32 name => uint64) private _versions;
    /// How many tools are registered.
    uint256 public registered;

    event ToolRegistered(string tool, string url, uint64 version);
    event ToolDeregistered(string tool, uint64 version);

    /// A read of a tool not registered.
    error NotFound(string tool);

    constructor(address router) RouterRecipient(router) {}

    /// Defines `_tool` served at `url` with its schemas, or replaces the definition (its
    /// registrant only).
    function register(string calldata _tool, string calldata url, string calldata inputSchema, string calldata outputSchema)
        external
    {
        _checkName(_tool);
        if (!_validURL(bytes(url))) revert("registry: url must be an http or https URL with a host, at most 2048 bytes");
        if (!_isObject(bytes(inputSchema))) revert("registry: inputSchema must be a JSON object of at most 16384 bytes");
        if (!_isObject(bytes(outputSchema))) revert("registry: outputSchema must be a JSON object of at most 16384 bytes");
        bytes32 k = keccak256(bytes(_tool));
        Tool storage t = _tools[k];
        address from = _msgSender();
        if (t.owner == address(0)) {
            if (registered >= MAX_TOOLS) revert("too_many_tools");
            registered++;
            t.tool = _tool;
            t.owner = from;
        } else if (t.owner != from) {
            revert("not_owner");
        }
        uint64 v = ++_versions[k];
        t.url = url;
        t.inputSchema = inputSchema;
        t.outputSchema = outputSchema;
        t.version = v;
        emit ToolRegistered(_tool, url, v);
    }

    /// Removes `_tool` (its registrant only); the name is then free for anyone.
    function deregister(string calldata _tool) external {
        _checkName(_tool);
        bytes32 k = keccak256(bytes(_tool));
        Tool storage t = _tools[k];
        if (t.owner == address(0)) revert("no_such_tool");
        if (t.owner != _msgSender()) revert("not_owner");
        registered--;
        uint64 v = ++_versions[k];
        delete _tools[k];
        emit ToolDeregistered(_tool, v);
    }

    /// The definition of `_tool`; NotFound when it is not registered.
    function tool(string calldata _tool) external view returns (Tool memory) {
        Tool storage t = _tools[keccak256(bytes(_tool))];
        if (t.owner == address(0)) revert NotFound(_tool);
        return t;
    }

    /// The last version of `_tool`'s name (0: never registered).
    function version(string calldata _tool) external view returns (uint64) {
        return _versions[keccak256(bytes(_tool))];
    }

    function _checkName(string calldata s) private pure {
        bytes calldata b = bytes(s);
        bool ok = b.length > 0 && b.length <= MAX_TOOL_NAME;
        for (uint256 i; ok && i < b.length; i++) {
            bytes1 c = b[i];
            ok = (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "_" || c == "-" || c == ".";
        }
        if (!ok) revert("registry: tool must be 1-64 characters of [a-z0-9_.-]");
    }

    /// http:// or https:// and a host: the character after the scheme is none of / ? #.
    function _validURL(bytes calldata u) private pure returns (bool) {
        if (u.length > MAX_TOOL_URL) return false;
        uint256 p = _hasPrefix(u, "https://") ? 8 : _hasPrefix(u, "http://") ? 7 : 0;
        return p != 0 && u.length > p && u[p] != "/" && u[p] != "?" && u[p] != "#";
    }

    function _hasPrefix(bytes calldata u, bytes memory prefix) private pure returns (bool) {
        if (u.length < prefix.length) return false;
        for (uint256 i; i < prefix.length; i++) {
            if (u[i] != prefix[i]) return false;
        }
        return true;
    }

    /// At most MAX_TOOL_SCHEMA bytes whose first non-blank byte is "{".
    function _isObject(bytes calldata s) private pure returns (bool) {
        if (s.length > MAX_TOOL_SCHEMA) return false;
        for (uint256 i; i < s.length; i++) {
            bytes1 c = s[i];
            if (c != " " && c != "\t" && c != "\n" && c != "\r") return c == "{";
        }
        return false;
    }
}
