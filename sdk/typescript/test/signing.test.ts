// The devchain signing of the SDK against the vectors the Go side makes
// (internal/chain/devchain/testdata/tx_vectors.json, kept fresh by
// TestTxVectors): canonical args, hash, signature and wire JSON, byte for
// byte.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { canonicalArgs, keyFromLabel, keyFromSeed, signTx, txHash, txJSON, verifyTx, type Tx } from "../src/devchain.js";
import { RawNumber, canonicalJSON, parseJSON, stringifyJSON } from "../src/json.js";

interface Vector {
  name: string;
  seed: string;
  from: string;
  nonce: RawNumber;
  fee: RawNumber;
  contract: string;
  method: string;
  args: string;
  memo: string;
  canonical: string;
  hash: string;
  signature: string;
  tx: unknown;
}

const vectorsPath = fileURLToPath(new URL("../../../../internal/chain/devchain/testdata/tx_vectors.json", import.meta.url));
// Numbers as written: the wire form's args keep their literals.
const vectors = parseJSON(readFileSync(vectorsPath, "utf8"), { numbers: "raw" }) as unknown as Vector[];

test("the Go vectors are there", () => {
  assert.ok(vectors.length >= 10, `${vectors.length} vectors`);
});

for (const v of vectors) {
  test(`vector: ${v.name}`, () => {
    const key = keyFromSeed(v.seed);
    assert.equal(key.address, v.from);
    const tx: Tx = { from: v.from, nonce: BigInt(v.nonce.literal), fee: BigInt(v.fee.literal), contract: v.contract, method: v.method, argsText: v.args, memo: v.memo };
    assert.equal(canonicalArgs(tx), v.canonical);
    assert.equal(txHash(tx), v.hash);
    const signed = signTx(tx, key);
    assert.equal(signed.hash, v.hash);
    assert.equal(signed.tx.signature, v.signature);
    assert.ok(verifyTx(signed.tx));
    // The wire form: the same JSON value as Go's encoding.
    assert.equal(txJSON(signed.tx), stringifyJSON(v.tx));
    // args given as a value, not as text, hash the same (numbers kept
    // exact by the raw parse).
    if (v.args.trim() !== "") {
      const asValue = { ...tx, argsText: undefined, args: parseJSON(v.args, { numbers: "raw" }) };
      assert.equal(txHash(asValue), v.hash);
    }
  });
}

test("a changed field changes the hash and breaks the signature", () => {
  const key = keyFromLabel("alice");
  const { tx, hash } = signTx({ from: key.address, nonce: 1, fee: 1000, contract: "zkapp", method: "set", args: { a: 1 }, memo: "m" }, key);
  for (const change of [{ nonce: 2 }, { fee: 1001 }, { memo: "n" }, { args: { a: 2 } }, { method: "get" }]) {
    const other = { ...tx, ...change };
    assert.notEqual(txHash(other), hash, JSON.stringify(change));
    assert.equal(verifyTx(other), false, JSON.stringify(change));
  }
});

test("numbers out of a uint64 or unsafe are refused", () => {
  const key = keyFromLabel("alice");
  const base = { from: key.address, contract: "zkapp", method: "set" };
  assert.throws(() => txHash({ ...base, nonce: -1, fee: 1 }), RangeError);
  assert.throws(() => txHash({ ...base, nonce: 1n << 64n, fee: 1 }), RangeError);
  assert.throws(() => txHash({ ...base, nonce: 2 ** 53, fee: 1 }), RangeError);
  assert.throws(() => txHash({ ...base, nonce: 0, fee: "1e3" }), RangeError);
  assert.throws(() => signTx({ ...base, nonce: 0, fee: 1 }, keyFromLabel("bob")), /key is/);
});

test("canonical JSON: sorting, escapes, raw numbers", () => {
  const cases: [string, string][] = [
    [` {"b" : 1, "a": [true, null]} `, `{"a":[true,null],"b":1}`],
    [`null`, ``],
    [`  `, ``],
    [`{"x":1.0e+2}`, `{"x":1.0e+2}`],
    [`"<&>"`, `"<&>"`],
    [`"\\u0007"`, `"\\u0007"`],
  ];
  for (const [input, want] of cases) assert.equal(canonicalJSON(input), want, input);
  for (const bad of [`{`, `{"a":1,}`, `[1 2]`, `01`, `{"a":1} x`, `"\\x"`]) {
    assert.throws(() => canonicalJSON(bad), SyntaxError, bad);
  }
});

test("parseJSON keeps integers beyond 2^53 as bigint", () => {
  const v = parseJSON(`{"small":9007199254740991,"big":9007199254740993,"f":1.5,"neg":-18446744073709551615}`) as Record<string, unknown>;
  assert.equal(v.small, 9007199254740991);
  assert.equal(v.big, 9007199254740993n);
  assert.equal(v.f, 1.5);
  assert.equal(v.neg, -18446744073709551615n);
  assert.equal(stringifyJSON(v), `{"small":9007199254740991,"big":9007199254740993,"f":1.5,"neg":-18446744073709551615}`);
});
