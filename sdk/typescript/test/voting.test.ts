// The voting example builds each of the seed's types exactly as the Go
// example worker does: the vectors of examples/worker/testdata (kept fresh
// by its TestBuildVectors), hash for hash.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WorkerError, canonicalArgs, parseJSON, parseRequest, stringifyJSON, txHash, type JSONValue } from "../src/index.js";
import { build } from "../examples/voting/voting.js";

interface BuildVector {
  type: string;
  data?: unknown;
  sender: unknown;
  uid: string;
  hash?: string;
  canonical?: string;
  error?: string;
}

const path = fileURLToPath(new URL("../../../../examples/worker/testdata/build_vectors.json", import.meta.url));
const text = readFileSync(path, "utf8");
const vectors = JSON.parse(text) as BuildVector[];

test("the Go build vectors are there", () => {
  assert.ok(vectors.length >= 50, `${vectors.length} vectors`);
});

test("each vector builds as the Go worker builds it", () => {
  // The vectors parsed with numbers as written: each one's body goes
  // through the worker's own request parser, data text intact.
  const raw = parseJSON(text, { numbers: "raw" }) as Record<string, JSONValue>[];
  assert.equal(raw.length, vectors.length);
  for (const [i, v] of vectors.entries()) {
    const td: Record<string, JSONValue> = { uid: raw[i].uid, type: raw[i].type };
    if (raw[i].data !== undefined) td.data = raw[i].data;
    const { txnData, sender } = parseRequest(stringifyJSON({ txnData: td, sender: raw[i].sender }));
    const name = `${v.type} ${txnData.dataJSON ?? "(no data)"}`;
    if (v.error) {
      assert.throws(() => build(txnData, sender), (e: unknown) => e instanceof WorkerError && e.permanent && v.error!.startsWith(e.message), name);
      continue;
    }
    const tx = build(txnData, sender);
    assert.equal(canonicalArgs(tx), v.canonical, name);
    assert.equal(txHash(tx), v.hash, name);
    assert.equal(tx.memo, "tx_1");
    assert.equal(tx.nonce, 7n);
  }
});
