// @ordolabs/ordo: ordo's TypeScript SDK. A worker server for the node's
// worker protocol, a typed client of the node's API, and devchain signing.
export * from "./errors.js";
export * from "./json.js";
export * from "./devchain.js";
export * from "./worker.js";
