// The EVM signing of the SDK against the vectors go-ethereum and ordo's EVM
// Signer make (internal/chain/evm/testdata/evm_vectors.json, kept fresh by
// TestEVMVectors): addresses, signing hashes, signatures, raw transactions,
// their hashes, the router's calldata, the tip and personal messages.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  checksumAddress, encodeRouterExecute, evmKey, evmSigningHash, evmTip, keccak256, normalAddress, ordoEVMTx, personalDigest,
  personalSign, readEVMKeyFile, recoverAddress, rlpEncode, signEVMTx, type EVMTx,
} from "../src/evm.js";

interface TxVector {
  name: string; privateKey: string; address: string; checksumAddress: string; chainId: string; nonce: string;
  maxPriorityFeePerGas: string; maxFeePerGas: string; gas: string; to: string | null; value: string; data: string;
  signingHash: string; signature: string; raw: string; hash: string;
}
interface OrdoVector {
  name: string; privateKey: string; chainId: string; tipPercent: number; from: string; nonce: string; fee: string; gas: string;
  memo: string; tip: string; calls: { target: string; data: string }[] | null; to: string; data: string; strictData: string;
  signature: string; raw: string; hash: string;
}
interface Vectors {
  txs: TxVector[];
  ordo: OrdoVector[];
  tips: { fee: string; tipPercent: number; tip: string }[];
  personal: { privateKey: string; address: string; message: string; digest: string; signature: string }[];
}

const vectorsPath = fileURLToPath(new URL("../../../../internal/chain/evm/testdata/evm_vectors.json", import.meta.url));
const vectors = JSON.parse(readFileSync(vectorsPath, "utf8")) as Vectors;

test("the Go vectors are there", () => {
  assert.ok(vectors.txs.length >= 10 && vectors.ordo.length >= 4 && vectors.tips.length >= 5 && vectors.personal.length >= 4,
    `${vectors.txs.length} txs, ${vectors.ordo.length} ordo, ${vectors.tips.length} tips, ${vectors.personal.length} personal`);
});

for (const v of vectors.txs) {
  test(`transaction vector: ${v.name}`, () => {
    const key = evmKey(v.privateKey);
    assert.equal(key.address, v.address);
    assert.equal(key.checksumAddress, v.checksumAddress);
    assert.equal(checksumAddress(v.address), v.checksumAddress);
    const tx: EVMTx = {
      chainId: v.chainId, nonce: BigInt(v.nonce), maxPriorityFeePerGas: v.maxPriorityFeePerGas, maxFeePerGas: BigInt(v.maxFeePerGas),
      gas: v.gas, to: v.to, value: v.value, data: v.data,
    };
    assert.equal(evmSigningHash(tx), v.signingHash);
    const s = signEVMTx(tx, key);
    assert.equal(s.signingHash, v.signingHash);
    assert.equal(s.signature, v.signature);
    assert.equal(s.raw, v.raw);
    assert.equal(s.hash, v.hash);
    assert.equal(keccak256(s.raw), v.hash);
    assert.equal(recoverAddress(v.signingHash, v.signature), v.address);
  });
}

for (const v of vectors.ordo) {
  test(`ordo's signer vector: ${v.name}`, () => {
    const key = evmKey("0x" + v.privateKey);
    assert.equal(key.address, v.from);
    if (v.calls) {
      assert.equal(encodeRouterExecute(v.memo, v.calls), v.data);
      assert.equal(encodeRouterExecute(v.memo, v.calls, true), v.strictData);
    }
    assert.equal(evmTip(v.fee, v.tipPercent), BigInt(v.tip));
    // A first attempt's gas is the worker's estimate; a replacement's is sender.gas.
    const first = ordoEVMTx({ chainId: v.chainId, sender: { nonce: v.nonce, fee: v.fee }, gas: v.gas, to: v.to, data: v.data, tipPercent: v.tipPercent });
    const again = ordoEVMTx({ chainId: v.chainId, sender: { nonce: BigInt(v.nonce), fee: v.fee, gas: v.gas }, gas: 1, to: v.to, data: v.data, tipPercent: v.tipPercent });
    for (const tx of [first, again]) {
      const s = signEVMTx(tx, key);
      assert.equal(s.signature, v.signature);
      assert.equal(s.raw, v.raw);
      assert.equal(s.hash, v.hash);
    }
  });
}

test("the tip: max(1, fee × tipPercent / 100)", () => {
  for (const v of vectors.tips) assert.equal(evmTip(v.fee, v.tipPercent), BigInt(v.tip), `${v.fee} at ${v.tipPercent}%`);
});

for (const [i, v] of vectors.personal.entries()) {
  test(`personal message vector ${i}`, () => {
    const key = evmKey(v.privateKey);
    assert.equal(key.address, v.address);
    assert.equal(personalDigest(v.message), v.digest);
    assert.equal(personalDigest(new TextEncoder().encode(v.message)), v.digest);
    assert.equal(personalSign(v.message, key), v.signature);
    assert.equal(recoverAddress(v.digest, v.signature), v.address);
  });
}

test("RLP: the encoding's edges", () => {
  const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
  assert.equal(hex(rlpEncode(new Uint8Array(0))), "80");
  assert.equal(hex(rlpEncode(Uint8Array.of(0x7f))), "7f");
  assert.equal(hex(rlpEncode(Uint8Array.of(0x80))), "8180");
  assert.equal(hex(rlpEncode([])), "c0");
  assert.equal(hex(rlpEncode([[], [[]], [[], [[]]]])), "c7c0c1c0c3c0c1c0"); // the set-theoretic three
  assert.equal(hex(rlpEncode(new Uint8Array(56)).subarray(0, 2)), "b838");
  assert.equal(hex(rlpEncode(new Uint8Array(70000)).subarray(0, 4)), "ba011170");
  assert.equal(hex(rlpEncode([new Uint8Array(60)]).subarray(0, 3)), "f83eb8");
});

test("a changed field changes the hash, and the signature recovers to another account", () => {
  const key = evmKey("0x" + "11".repeat(32));
  const tx: EVMTx = { chainId: 1337, nonce: 0, maxPriorityFeePerGas: 1, maxFeePerGas: 10, gas: 21000, to: key.address, data: "0x" };
  const a = signEVMTx(tx, key);
  for (const changed of [{ ...tx, nonce: 1 }, { ...tx, chainId: 1 }, { ...tx, maxFeePerGas: 11 }, { ...tx, data: "0x00" }, { ...tx, to: null }, { ...tx, value: 1 }]) {
    const b = signEVMTx(changed, key);
    assert.notEqual(b.hash, a.hash);
    assert.notEqual(recoverAddress(b.signingHash, a.signature), key.address);
  }
  assert.equal(signEVMTx(tx, key).raw, a.raw, "deterministic");
});

test("bad input is refused", () => {
  assert.throws(() => evmKey("00".repeat(32)), RangeError); // zero is no key
  assert.throws(() => evmKey("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"), RangeError); // the order
  assert.throws(() => evmKey("abc"), TypeError);
  assert.throws(() => normalAddress("0x7E5F4552091A69125d5DfCb7b8C2659029395BDF"), /checksum/);
  assert.equal(normalAddress("0x7E5F4552091A69125D5DFCB7B8C2659029395BDF"), "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf");
  const tx: EVMTx = { chainId: 1, nonce: 0, maxPriorityFeePerGas: 1, maxFeePerGas: 1, gas: 21000, to: null };
  assert.throws(() => evmSigningHash({ ...tx, nonce: 1n << 64n }), /nonce .* out of range/);
  assert.throws(() => evmSigningHash({ ...tx, value: 1n << 256n }), /value .* out of range/);
  assert.throws(() => evmSigningHash({ ...tx, gas: 2 ** 53 }), /safe integer/);
  assert.throws(() => evmSigningHash({ ...tx, data: "0xabc" }), /even number/);
  assert.throws(() => ordoEVMTx({ chainId: 1, sender: { nonce: 0, fee: "1" }, to: tx.to ?? "", data: "0x" }), /no gas limit/);
  assert.throws(() => ordoEVMTx({ chainId: 1, sender: { nonce: 0, fee: "0", gas: "21000" }, to: "0x" + "00".repeat(20), data: "0x" }), /fee 0/);
  const high = signEVMTx(tx, evmKey("0x" + "22".repeat(32)));
  const s = BigInt("0x" + high.signature.slice(66, 130));
  const n = BigInt("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
  const flipped = high.signature.slice(0, 66) + (n - s).toString(16).padStart(64, "0") + (high.yParity ? "00" : "01");
  assert.throws(() => recoverAddress(high.signingHash, flipped), /high/);
});

test("a raw key file: 64 hex digits, 0x and space allowed; a keystore file refused", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ordo-sdk-evmkey-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const v = vectors.txs[0];
  for (const [name, text] of [["plain", v.privateKey], ["0x and a newline", `0x${v.privateKey}\n`], ["spaces", `  ${v.privateKey.toUpperCase()}  `]]) {
    writeFileSync(join(dir, name), text);
    assert.equal(readEVMKeyFile(join(dir, name)).address, v.address, name);
  }
  writeFileSync(join(dir, "keystore"), `{"address":"${v.address.slice(2)}","crypto":{}}`);
  assert.throws(() => readEVMKeyFile(join(dir, "keystore")), /keystore file/);
  writeFileSync(join(dir, "short"), v.privateKey.slice(2));
  assert.throws(() => readEVMKeyFile(join(dir, "short")), /64 hex digits/);
});
