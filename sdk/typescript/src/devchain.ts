// devchain transactions, hashed and signed byte for byte as the Go side
// does (internal/chain/tx.go), and a small client of a devchain's API.

import { createHash, createPrivateKey, createPublicKey, sign as edSign, verify as edVerify, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { OrdoError, errorFromResponse } from "./errors.js";
import { RawJSON, canonicalJSON, parseJSON, stringifyJSON, type JSONValue } from "./json.js";

/** An unsigned 64-bit integer: a bigint, a safe number or a decimal string. */
export type Uint64 = bigint | number | string;

/**
 * Tx is a devchain transaction: a call of a contract method, signed by its
 * sender (chain.Tx in Go). args is any JSON value (bigint and RawNumber
 * keep numbers exact); use argsText instead to give the args as JSON text.
 */
export interface Tx {
  from: string;
  nonce: Uint64;
  fee: Uint64;
  contract: string;
  method: string;
  args?: unknown;
  /** The args as JSON text; wins over args when set. */
  argsText?: string;
  memo?: string;
  gas?: Uint64;
  signature?: string;
}

/** An ed25519 key of a devchain account. */
export interface Key {
  /** The 32-byte seed (the node's keyFile holds its hex). */
  seed: Buffer;
  /** The account's address: the hex of the public key. */
  address: string;
  privateKey: KeyObject;
}

const pkcs8Prefix = Buffer.from("302e020100300506032b657004220420", "hex");
const maxUint64 = (1n << 64n) - 1n;

/** keyFromSeed returns the ed25519 key of a 32-byte seed (bytes or hex). */
export function keyFromSeed(seed: Uint8Array | string): Key {
  const s = typeof seed === "string" ? Buffer.from(seed.trim(), "hex") : Buffer.from(seed);
  if (s.length !== 32 || (typeof seed === "string" && !/^[0-9a-fA-F]{64}$/.test(seed.trim()))) {
    throw new TypeError("an ed25519 seed is 32 bytes (64 hex digits)");
  }
  const privateKey = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, s]), format: "der", type: "pkcs8" });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return { seed: s, address: spki.subarray(spki.length - 32).toString("hex"), privateKey };
}

/**
 * keyFromLabel derives a deterministic key from a label, as Go's
 * chain.KeyFromSeed does (its seed is the SHA-256 of the label): for dev
 * accounts and tests only.
 */
export function keyFromLabel(label: string): Key {
  return keyFromSeed(createHash("sha256").update(label, "utf8").digest());
}

/** readKeyFile reads a key from a file holding the hex of its seed (the node's keyFile format). */
export function readKeyFile(path: string): Key {
  return keyFromSeed(readFileSync(path, "utf8"));
}

/** toUint64 checks and converts a nonce, fee or amount. */
export function toUint64(v: Uint64, what = "value"): bigint {
  let n: bigint;
  if (typeof v === "bigint") n = v;
  else if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) throw new RangeError(`${what} ${v} is not a safe integer: give a bigint or a decimal string`);
    n = BigInt(v);
  } else {
    if (!/^[0-9]+$/.test(v)) throw new RangeError(`${what} ${JSON.stringify(v)} is not a decimal integer`);
    n = BigInt(v);
  }
  if (n < 0n || n > maxUint64) throw new RangeError(`${what} ${n} is out of the range of a uint64`);
  return n;
}

/** canonicalArgs is the canonical JSON text of a transaction's args ("" for none). */
export function canonicalArgs(tx: Pick<Tx, "args" | "argsText">): string {
  if (tx.argsText !== undefined) return canonicalJSON(tx.argsText);
  if (tx.args === undefined || tx.args === null) return "";
  return canonicalJSON(stringifyJSON(tx.args));
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}

function field(s: string): Buffer {
  const b = Buffer.from(s, "utf8");
  return Buffer.concat([u64(BigInt(b.length)), b]);
}

/**
 * txHash is the transaction's hash (hex): SHA-256 over "ordo-tx-v1" and a
 * length-prefixed encoding of from, nonce, fee, contract, method, the
 * canonical args and memo. The signature and gas are not part of it.
 */
export function txHash(tx: Tx): string {
  const h = createHash("sha256");
  h.update("ordo-tx-v1");
  h.update(field(tx.from));
  h.update(u64(toUint64(tx.nonce, "nonce")));
  h.update(u64(toUint64(tx.fee, "fee")));
  h.update(field(tx.contract));
  h.update(field(tx.method));
  h.update(field(canonicalArgs(tx)));
  h.update(field(tx.memo ?? ""));
  return h.digest("hex");
}

/**
 * signTx returns the transaction signed by key (ed25519 over the 32 bytes
 * of its hash), with its hash. key must be the key of tx.from.
 */
export function signTx(tx: Tx, key: Key): { tx: Tx; hash: string } {
  if (tx.from !== key.address) throw new Error(`the key is ${key.address}'s, the transaction is from ${tx.from}`);
  const hash = txHash(tx);
  const signature = edSign(null, Buffer.from(hash, "hex"), key.privateKey).toString("hex");
  return { tx: { ...tx, signature }, hash };
}

/** verifyTx checks a transaction's signature against its from address. */
export function verifyTx(tx: Tx): boolean {
  if (!/^[0-9a-f]{64}$/.test(tx.from) || !/^[0-9a-fA-F]{128}$/.test(tx.signature ?? "")) return false;
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(tx.from, "hex")]);
  const pub = createPublicKey({ key: spki, format: "der", type: "spki" });
  return edVerify(null, Buffer.from(txHash(tx), "hex"), pub, Buffer.from(tx.signature!, "hex"));
}

/**
 * txJSON is the transaction as devchain's API takes it (POST /v1/tx) and
 * as a type's worker answers it (POST /build): nonce and fee as exact
 * JSON numbers, args in canonical form.
 */
export function txJSON(tx: Tx): string {
  const args = canonicalArgs(tx);
  const o: Record<string, unknown> = {
    from: tx.from,
    nonce: toUint64(tx.nonce, "nonce"),
    fee: toUint64(tx.fee, "fee"),
    contract: tx.contract,
    method: tx.method,
  };
  if (args !== "") o.args = new RawJSON(args);
  if (tx.memo) o.memo = tx.memo;
  if (tx.gas !== undefined && toUint64(tx.gas, "gas") !== 0n) o.gas = toUint64(tx.gas, "gas");
  if (tx.signature) o.signature = tx.signature;
  return stringifyJSON(o);
}

/** A transaction's status on a devchain. */
export interface TxStatus {
  hash: string;
  state: "unknown" | "pending" | "included" | "dropped" | string;
  [field: string]: JSONValue | undefined;
}

/** An account on a devchain: balance in wei, exact. */
export interface Account {
  address: string;
  balance: bigint;
  nonce: number;
  pendingNonce: number;
  [field: string]: JSONValue | undefined;
}

/**
 * DevchainClient is a small client of a devchain's API (a standalone
 * `ordo devchain`, or a node in dev mode, which serves its in-process
 * devchain's routes): what a worker needs to send and check transactions.
 */
export class DevchainClient {
  private readonly base: string;
  constructor(
    baseURL: string,
    private readonly opts: { token?: string; timeoutMs?: number } = {},
  ) {
    this.base = baseURL.replace(/\/+$/, "");
  }

  private async do(method: string, path: string, body?: string, signal?: AbortSignal): Promise<JSONValue> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (method !== "GET") headers["Content-Type"] = "application/json";
    if (this.opts.token) headers.Authorization = `Bearer ${this.opts.token}`;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    let resp: Response;
    try {
      resp = await fetch(this.base + path, { method, headers, body, signal: signal ? anySignal([signal, timeout]) : timeout });
    } catch (err) {
      throw new OrdoError(0, "network", `devchain ${method} ${path}: ${(err as Error).message}`);
    }
    if (!resp.ok) throw await errorFromResponse(resp);
    return parseJSON(await resp.text());
  }

  /** sendTx submits a signed transaction and returns its hash. */
  async sendTx(tx: Tx, signal?: AbortSignal): Promise<string> {
    const out = (await this.do("POST", "/v1/tx", txJSON(tx), signal)) as { hash: string };
    return out.hash;
  }

  /** txStatus reports a transaction's status ("unknown" for a hash the chain has not seen). */
  async txStatus(hash: string, signal?: AbortSignal): Promise<TxStatus> {
    if (!/^[0-9a-f]{64}$/.test(hash)) return { hash, state: "unknown" };
    return (await this.do("GET", `/v1/tx/${hash}`, undefined, signal)) as TxStatus;
  }

  /** call runs a read-only contract method and returns its result. */
  async call(contract: string, method: string, args?: unknown, signal?: AbortSignal): Promise<JSONValue> {
    const body: Record<string, unknown> = { contract, method };
    if (args !== undefined) body.args = args;
    const out = (await this.do("POST", "/v1/call", stringifyJSON(body), signal)) as { result?: JSONValue };
    return out.result ?? null;
  }

  /** account returns an account's balance and nonces. */
  async account(address: string, signal?: AbortSignal): Promise<Account> {
    const a = (await this.do("GET", `/v1/accounts/${address}`, undefined, signal)) as Record<string, JSONValue>;
    return { ...a, balance: BigInt(a.balance as number | bigint) } as Account;
  }

  /** faucet credits amount wei to address (dev mode only). */
  async faucet(address: string, amount: Uint64, signal?: AbortSignal): Promise<void> {
    await this.do("POST", "/v1/faucet", stringifyJSON({ address, amount: toUint64(amount, "amount") }), signal);
  }
}

/** anySignal aborts when any of signals does (AbortSignal.any is Node 20+). */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      c.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}
