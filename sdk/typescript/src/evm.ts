// EVM signing, byte for byte as go-ethereum signs for ordo's EVM backend
// (internal/chain/evm): secp256k1 keys and their addresses, EIP-1559
// transactions (RLP, the signing hash, a low-S signature with its y-parity,
// the raw bytes and their hash), OrdoRouter.execute's calldata, and EIP-191
// personal messages. Keccak-256 and secp256k1 come from @noble/hashes and
// @noble/curves: node:crypto has neither Keccak-256 nor a signature of a
// raw digest with its recovery id.

import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { readFileSync } from "node:fs";

/** An unsigned integer: a bigint, a safe number, a decimal string or 0x hex. */
export type UintLike = bigint | number | string;

/** Bytes: a Uint8Array or 0x hex ("0x" alone is empty). */
export type BytesLike = Uint8Array | string;

/** An EVM account's secp256k1 key. */
export interface EVMKey {
  /** The 32-byte private key. */
  privateKey: Uint8Array;
  /** The account: "0x" and 40 lowercase hex digits, ordo's form. */
  address: string;
  /** The same account with the EIP-55 checksum. */
  checksumAddress: string;
}

/**
 * EVMTx is an EIP-1559 (type 2) transaction, the only type ordo's EVM
 * backend builds. Its access list is empty. to null is a contract creation.
 */
export interface EVMTx {
  chainId: UintLike;
  nonce: UintLike;
  maxPriorityFeePerGas: UintLike;
  maxFeePerGas: UintLike;
  gas: UintLike;
  to: string | null;
  /** Wei sent along; default 0. */
  value?: UintLike;
  /** Calldata; default empty. */
  data?: BytesLike;
}

/** SignedEVMTx is a signed transaction: what eth_sendRawTransaction takes, and its hash. */
export interface SignedEVMTx {
  /** The raw transaction: 0x02 ‖ RLP(fields, yParity, r, s), in 0x hex. */
  raw: string;
  /** Keccak-256 of raw: the transaction's hash on chain and in ordo. */
  hash: string;
  /** Keccak-256 of 0x02 ‖ RLP(fields): what the key signed. */
  signingHash: string;
  /** The 65 bytes [R‖S‖V] in 0x hex, V the y-parity (0 or 1): ordo's Tx.Signature. */
  signature: string;
  yParity: 0 | 1;
  r: bigint;
  s: bigint;
}

const maxUint64 = (1n << 64n) - 1n;
const maxUint256 = (1n << 256n) - 1n;

/** keccak256 is the Keccak-256 digest of data, in 0x hex. */
export function keccak256(data: BytesLike): string {
  return hex(keccak_256(bytesOf(data, "data")));
}

/** evmKey returns the key of a 32-byte private key: bytes, or 64 hex digits with an optional 0x. */
export function evmKey(privateKey: BytesLike): EVMKey {
  let k: Uint8Array;
  if (typeof privateKey === "string") {
    const s = privateKey.trim().replace(/^0x/, "");
    if (!/^[0-9a-fA-F]{64}$/.test(s)) throw new TypeError("a secp256k1 private key is 32 bytes (64 hex digits)");
    k = fromHex(s);
  } else {
    k = Uint8Array.from(privateKey);
  }
  if (k.length !== 32 || !secp256k1.utils.isValidPrivateKey(k)) {
    throw new RangeError("a secp256k1 private key is 32 bytes, from 1 to the curve's order − 1");
  }
  const address = addressOfPublicKey(secp256k1.getPublicKey(k, false));
  return { privateKey: k, address, checksumAddress: checksumAddress(address) };
}

/**
 * readEVMKeyFile reads a raw key file: 64 hex digits, an optional 0x,
 * surrounding space ignored (the node's raw keyFile format). A keystore
 * JSON file is not read here.
 */
export function readEVMKeyFile(path: string): EVMKey {
  const text = readFileSync(path, "utf8");
  if (text.trim().startsWith("{")) throw new TypeError(`${path} is a keystore file: give the raw key (64 hex digits)`);
  return evmKey(text);
}

/** addressOfPublicKey is the account of a public key (33 or 65 bytes): the last 20 bytes of the Keccak-256 of its x ‖ y. */
export function addressOfPublicKey(publicKey: Uint8Array): string {
  const p = secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
  return hex(keccak_256(p.subarray(1)).subarray(12));
}

/** checksumAddress writes an address with its EIP-55 checksum. */
export function checksumAddress(address: string): string {
  const a = normalAddress(address, "address");
  const h = keccak_256(new TextEncoder().encode(a.slice(2)));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const c = a[2 + i];
    const nibble = (h[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 15;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/**
 * normalAddress checks an address ("0x" and 40 hex digits) and returns it
 * in lowercase. A mixed-case one must carry a valid EIP-55 checksum.
 */
export function normalAddress(address: string, what = "address"): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`${what} ${JSON.stringify(address)} is not "0x" and 40 hex digits`);
  const lower = address.toLowerCase();
  const body = address.slice(2);
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && checksumAddress(lower) !== address) {
    throw new TypeError(`${what} ${address} has a wrong EIP-55 checksum`);
  }
  return lower;
}

/** An RLP item: bytes, or a list of items. */
export type RLPItem = Uint8Array | RLPItem[];

/** rlpEncode is the RLP encoding of an item. */
export function rlpEncode(item: RLPItem): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0] < 0x80) return item;
    return concat([rlpLength(item.length, 0x80), item]);
  }
  const payload = concat(item.map(rlpEncode));
  return concat([rlpLength(payload.length, 0xc0), payload]);
}

function rlpLength(n: number, offset: number): Uint8Array {
  if (n <= 55) return Uint8Array.of(offset + n);
  const len = uintBytes(BigInt(n));
  return concat([Uint8Array.of(offset + 55 + len.length), len]);
}

/** evmSigningHash is the hash an EIP-1559 transaction's sender signs. */
export function evmSigningHash(tx: EVMTx): string {
  return hex(keccak_256(typed(fields(tx))));
}

/**
 * signEVMTx signs an EIP-1559 transaction as go-ethereum's types.SignTx
 * does: RFC 6979 deterministic, low S. The same transaction and key give
 * the same bytes and hash.
 */
export function signEVMTx(tx: EVMTx, key: EVMKey): SignedEVMTx {
  const f = fields(tx);
  const digest = keccak_256(typed(f));
  const sig = secp256k1.sign(digest, key.privateKey, { lowS: true });
  const yParity = sig.recovery as 0 | 1;
  const raw = typed([...f, yParity === 0 ? new Uint8Array(0) : Uint8Array.of(1), uintBytes(sig.r), uintBytes(sig.s)]);
  return {
    raw: hex(raw),
    hash: hex(keccak_256(raw)),
    signingHash: hex(digest),
    signature: hex(concat([sig.toCompactRawBytes(), Uint8Array.of(yParity)])),
    yParity,
    r: sig.r,
    s: sig.s,
  };
}

/**
 * recoverAddress is the account that made a 65-byte signature [R‖S‖V] of a
 * 32-byte digest. V is 0 or 1, or 27 or 28 (personal_sign's). A high S is
 * refused, as go-ethereum refuses it in a transaction.
 */
export function recoverAddress(digest: BytesLike, signature: BytesLike): string {
  const d = bytesOf(digest, "digest");
  const s = bytesOf(signature, "signature");
  if (d.length !== 32) throw new TypeError("a digest is 32 bytes");
  if (s.length !== 65) throw new TypeError("a signature is 65 bytes [R‖S‖V]");
  const v = s[64] >= 27 ? s[64] - 27 : s[64];
  if (v !== 0 && v !== 1) throw new RangeError(`V ${s[64]} is neither 0/1 nor 27/28`);
  const sig = secp256k1.Signature.fromCompact(s.subarray(0, 64)).addRecoveryBit(v);
  if (sig.hasHighS()) throw new RangeError("the signature's S is high (EIP-2)");
  return addressOfPublicKey(sig.recoverPublicKey(d).toRawBytes(false));
}

/** evmTip is ordo's priority fee for a fee cap: max(1, fee × tipPercent / 100), rounded down (evm tipPercent, default 10). */
export function evmTip(fee: UintLike, tipPercent: UintLike = 10): bigint {
  const t = (uint(fee, "fee", maxUint256) * uint(tipPercent, "tipPercent", 100n)) / 100n;
  return t === 0n ? 1n : t;
}

/**
 * OrdoEVMAttempt is what a worker needs to build a dispatch's transaction
 * as the node's EVM Signer builds its own: the node's sender (its nonce,
 * fee and the gas of the attempt it replaces) and the calldata.
 */
export interface OrdoEVMAttempt {
  chainId: UintLike;
  sender: { nonce: UintLike; fee: UintLike; gas?: UintLike };
  /** The router for an intent (encodeRouterExecute's calldata), else the contract. */
  to: string;
  data: BytesLike;
  /** The gas limit when sender.gas is absent: an estimate (the node takes eth_estimateGas × 130%). */
  gas?: UintLike;
  /** The node's evm.tipPercent; default 10. */
  tipPercent?: UintLike;
}

/**
 * ordoEVMTx is an attempt's transaction as the node builds one: fee cap
 * sender.fee, tip evmTip(fee), value 0. A replacement (sender.gas set) keeps
 * the gas of the attempt it replaces, so both caps rise by the same share.
 */
export function ordoEVMTx(a: OrdoEVMAttempt): EVMTx {
  const gas = a.sender.gas !== undefined && a.sender.gas !== "" && a.sender.gas !== 0 && a.sender.gas !== 0n ? a.sender.gas : a.gas;
  if (gas === undefined || uint(gas, "gas", maxUint64) === 0n) throw new RangeError("no gas limit: give sender.gas (a replacement) or an estimate");
  const fee = uint(a.sender.fee, "fee", maxUint64);
  if (fee === 0n) throw new RangeError("fee 0: an EIP-1559 fee cap is at least 1 wei");
  return {
    chainId: a.chainId, nonce: a.sender.nonce, maxPriorityFeePerGas: evmTip(fee, a.tipPercent ?? 10n), maxFeePerGas: fee, gas, to: a.to, value: 0n, data: a.data,
  };
}

/** A call of OrdoRouter.execute: a target contract and its calldata. */
export interface RouterCall {
  target: string;
  data: BytesLike;
}

/**
 * encodeRouterExecute is the calldata of OrdoRouter.execute(memo, calls),
 * the transaction of an intent (memo: its uid). Each call's data is the
 * target's ABI-encoded call, made with any ABI encoder.
 */
export function encodeRouterExecute(memo: string, calls: RouterCall[], strict = false): string {
  const selector = keccak_256(new TextEncoder().encode(`${strict ? "executeStrict" : "execute"}(string,(address,bytes)[])`)).subarray(0, 4);
  const memoEnc = abiBytes(new TextEncoder().encode(memo));
  const tuples = calls.map((c) => concat([word(BigInt(normalAddress(c.target, "call target"))), word(64n), abiBytes(bytesOf(c.data, "call data"))]));
  const heads: Uint8Array[] = [];
  let off = 32n * BigInt(tuples.length);
  for (const t of tuples) {
    heads.push(word(off));
    off += BigInt(t.length);
  }
  const callsEnc = concat([word(BigInt(calls.length)), ...heads, ...tuples]);
  return hex(concat([selector, word(64n), word(64n + BigInt(memoEnc.length)), memoEnc, callsEnc]));
}

/** personalDigest is the EIP-191 hash of a message: Keccak-256 of "\x19Ethereum Signed Message:\n", its length in bytes, and it. */
export function personalDigest(message: string | Uint8Array): string {
  const m = typeof message === "string" ? new TextEncoder().encode(message) : message;
  return hex(keccak_256(concat([new TextEncoder().encode(`\x19Ethereum Signed Message:\n${m.length}`), m])));
}

/**
 * personalSign signs a message as a wallet's personal_sign does, and as
 * ordo's tool protocol signs with a secp256k1 key: 65 bytes [R‖S‖V], V 27
 * or 28, in 0x hex.
 */
export function personalSign(message: string | Uint8Array, key: EVMKey): string {
  const sig = secp256k1.sign(fromHex(personalDigest(message).slice(2)), key.privateKey, { lowS: true });
  return hex(concat([sig.toCompactRawBytes(), Uint8Array.of(27 + (sig.recovery as number))]));
}

function fields(tx: EVMTx): RLPItem[] {
  return [
    uintBytes(uint(tx.chainId, "chainId", maxUint256)),
    uintBytes(uint(tx.nonce, "nonce", maxUint64)),
    uintBytes(uint(tx.maxPriorityFeePerGas, "maxPriorityFeePerGas", maxUint256)),
    uintBytes(uint(tx.maxFeePerGas, "maxFeePerGas", maxUint256)),
    uintBytes(uint(tx.gas, "gas", maxUint64)),
    tx.to === null ? new Uint8Array(0) : fromHex(normalAddress(tx.to, "to").slice(2)),
    uintBytes(uint(tx.value ?? 0n, "value", maxUint256)),
    tx.data === undefined ? new Uint8Array(0) : bytesOf(tx.data, "data"),
    [], // the access list
  ];
}

function typed(f: RLPItem[]): Uint8Array {
  return concat([Uint8Array.of(2), rlpEncode(f)]);
}

function uint(v: UintLike, what: string, max: bigint): bigint {
  let n: bigint;
  if (typeof v === "bigint") n = v;
  else if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) throw new RangeError(`${what} ${v} is not a safe integer: give a bigint or a string`);
    n = BigInt(v);
  } else {
    if (!/^([0-9]+|0x[0-9a-fA-F]+)$/.test(v)) throw new RangeError(`${what} ${JSON.stringify(v)} is neither decimal nor 0x hex`);
    n = BigInt(v);
  }
  if (n < 0n || n > max) throw new RangeError(`${what} ${n} is out of range (0 to ${max})`);
  return n;
}

/** uintBytes is n big-endian without leading zeros (0: empty), RLP's integer form. */
function uintBytes(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0);
  let s = n.toString(16);
  if (s.length % 2) s = "0" + s;
  return fromHex(s);
}

function word(n: bigint): Uint8Array {
  return fromHex(n.toString(16).padStart(64, "0"));
}

function abiBytes(b: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(b.length / 32) * 32);
  padded.set(b);
  return concat([word(BigInt(b.length)), padded]);
}

function bytesOf(b: BytesLike, what: string): Uint8Array {
  if (typeof b !== "string") return b;
  if (!/^0x([0-9a-fA-F]{2})*$/.test(b)) throw new TypeError(`${what} must be 0x and an even number of hex digits`);
  return fromHex(b.slice(2));
}

function fromHex(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, "hex"));
}

function hex(b: Uint8Array): string {
  return "0x" + Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");
}

function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}
