// @ordolabs/ordo: ordo's TypeScript SDK. A worker server for the node's
// worker protocol, a typed client of the node's API, devchain and EVM signing.
export * from "./errors.js";
export * from "./json.js";
export * from "./devchain.js";
export * from "./evm.js";
export * from "./evmrpc.js";
export * from "./worker.js";
export * from "./sse.js";
export { ClientBase, revive, type Call, type ClientOptions, type RequestOptions, type Shape } from "./client.js";
export { GeneratedClient, apiVersion } from "./generated/api.js";
export * as api from "./generated/api.js";
export { OrdoClient, type Intent } from "./ordo.js";
