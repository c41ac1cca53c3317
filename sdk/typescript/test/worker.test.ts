// The worker server's protocol: routes, bodies, error semantics, timeouts,
// the health route and graceful shutdown, as docs/workers.md and the Go
// example worker (examples/worker) have them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { Worker, WorkerError, keyFromLabel, txHash, verifyTx, type WorkerHandlers, type WorkerOptions } from "../src/index.js";
import { parseJSON } from "../src/json.js";

async function start(t: { after: (fn: () => unknown) => void }, h: WorkerHandlers, opts: WorkerOptions = {}) {
  const w = new Worker(h, { log: () => {}, ...opts });
  const url = await w.listen();
  t.after(() => w.close());
  return { w, url };
}

async function post(url: string, body: string, method = "POST") {
  const resp = await fetch(url, { method, body: method === "GET" ? undefined : body, headers: { "Content-Type": "application/json" } });
  const text = await resp.text();
  return { status: resp.status, text, json: text ? (parseJSON(text) as Record<string, any>) : undefined, headers: resp.headers };
}

const alice = keyFromLabel("alice");
const req = (uid: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ txnData: { uid, type: "SEND_CLAIM_VOTE", data: { v: 1.5 } }, sender: { accountId: alice.address, queue: "q", retries: 0, nonce: 41, fee: "1000" }, ...extra });

test("dispatch: the handler sees the request, the answer is a TxnResult", async (t) => {
  let seen: any;
  const { url } = await start(t, {
    dispatch: (r) => {
      seen = r;
      return { hash: "ab".repeat(32) };
    },
  });
  const r = await post(url + "/dispatch", req("tx_1"));
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/json");
  assert.deepEqual(r.json, { hash: "ab".repeat(32) });
  assert.equal(seen.txnData.uid, "tx_1");
  assert.equal(seen.txnData.dataJSON, `{"v":1.5}`);
  assert.equal(seen.sender.nonce, 41n);
  assert.equal(seen.sender.fee, "1000");
  assert.equal(seen.sender.gas, undefined);
  assert.ok(seen.signal instanceof AbortSignal);
  // An EVM replacement's sender carries the gas limit it keeps.
  await post(url + "/dispatch", req("tx_1").replace(`"fee":"1000"`, `"fee":"1100","gas":"18446744073709551615"`));
  assert.equal(seen.sender.gas, "18446744073709551615");
});

test("dispatch errors: permanent, with a hash, and thrown exceptions", async (t) => {
  const cases: [WorkerHandlers["dispatch"], Record<string, unknown>][] = [
    [() => { throw new WorkerError("no call for type", { permanent: true }); }, { hash: "", error: { message: "no call for type", permanent: true } }],
    [() => { throw new WorkerError("fee too low", { code: "fee_too_low", hash: "cd".repeat(32) }); }, { hash: "cd".repeat(32), error: { message: "fee too low", code: "fee_too_low" } }],
    [() => { throw new Error("chain down"); }, { hash: "", error: { message: "chain down" } }],
    [async () => ({ hash: "ef".repeat(32), error: { message: "sent, then the answer was lost" } }), { hash: "ef".repeat(32), error: { message: "sent, then the answer was lost" } }],
  ];
  for (const [dispatch, want] of cases) {
    const { url } = await start(t, { dispatch });
    const r = await post(url + "/dispatch", req("tx_e"));
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, want);
  }
});

test("bodies it cannot read are 400; other methods 405; unknown or unimplemented calls 404", async (t) => {
  const { url } = await start(t, { dispatch: () => ({ hash: "ab".repeat(32) }) }, { maxBodyBytes: 1000 });
  for (const body of ["{", "[]", `{"txnData":1}`, `{"sender":{"fee":12}}`, req("tx_g").replace(`"fee":"1000"`, `"fee":"1000","gas":21000`), `{"sender":{"nonce":-1}}`, `{"txnData":{"uid":5}}`, "x".repeat(2000)]) {
    const r = await post(url + "/dispatch", body);
    assert.equal(r.status, 400, body.slice(0, 40));
    assert.match(r.json!.error.message, /^bad request body: /);
  }
  // Unknown fields are ignored, as the Go worker ignores them.
  assert.equal((await post(url + "/dispatch", `{"txnData":{"uid":"u","new":1},"sender":{},"more":[]}`)).status, 200);
  const get = await post(url + "/dispatch", "", "GET");
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST");
  assert.equal((await post(url + "/nope", "{}")).status, 404);
  assert.equal((await post(url + "/build", req("tx_b"))).status, 404);
});

test("build answers the unsigned transaction, numbers exact; its errors are error objects", async (t) => {
  const { url } = await start(t, {
    build: ({ txnData, sender }) => {
      if (txnData.type === "MINT_NFT") throw new WorkerError("no call for type MINT_NFT", { permanent: true });
      return { from: sender.accountId, nonce: sender.nonce, fee: sender.fee, contract: "zkapp", method: "append", args: { b: 1, a: [txnData.uid] }, memo: txnData.uid };
    },
  });
  const body = req("tx_b").replace(`"nonce":41,"fee":"1000"`, `"nonce":9007199254740993,"fee":"18446744073709551615"`);
  const r = await post(url + "/build", body);
  assert.equal(r.status, 200);
  assert.equal(r.text, `{"tx":{"from":"${alice.address}","nonce":9007199254740993,"fee":18446744073709551615,"contract":"zkapp","method":"append","args":{"a":["tx_b"],"b":1},"memo":"tx_b"}}\n`);
  // From, nonce and fee left out are the sender's.
  const short = await start(t, { build: ({ txnData }) => ({ contract: "zkapp", method: "get", memo: txnData.uid }) });
  assert.equal((await post(short.url + "/build", req("tx_s"))).text, `{"tx":{"from":"${alice.address}","nonce":41,"fee":1000,"contract":"zkapp","method":"get","memo":"tx_s"}}\n`);
  const bad = await post(url + "/build", req("tx_n").replace("SEND_CLAIM_VOTE", "MINT_NFT"));
  assert.deepEqual(bad.json, { error: { message: "no call for type MINT_NFT", permanent: true } });
});

test("hooks: defaults, answers, and errors as hook errors", async (t) => {
  const result = { result: { hash: "ab".repeat(32), done: null, error: { reason: "failed after 3 retries" } } };
  const plain = await start(t, {});
  assert.deepEqual((await post(plain.url + "/onSuccess", req("tx_h", { result: { hash: "ab".repeat(32) } }))).json, { hash: "ab".repeat(32), done: null });
  assert.deepEqual((await post(plain.url + "/onFailure", req("tx_h", result))).json, { hash: "ab".repeat(32) });
  let reason: unknown;
  const custom = await start(t, {
    onSuccess: ({ result }) => ({ hash: result.hash, done: { state: 1 } }),
    onFailure: ({ result }) => {
      reason = result.error;
      throw new Error("could not record it");
    },
  });
  assert.deepEqual((await post(custom.url + "/onSuccess", req("tx_h", { result: { hash: "ab".repeat(32) } }))).json, { hash: "ab".repeat(32), done: { state: 1 } });
  assert.deepEqual((await post(custom.url + "/onFailure", req("tx_h", result))).json, { hash: "ab".repeat(32), error: { message: "could not record it" } });
  assert.deepEqual(reason, { reason: "failed after 3 retries" });
});

test("a call past the timeout is answered 504 and its signal aborts", async (t) => {
  let aborted!: Promise<unknown>;
  const { url } = await start(t, {
    dispatch: ({ signal }) => {
      aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason)));
      return new Promise(() => {}); // never answers
    },
  }, { timeoutMs: 100 });
  const r = await post(url + "/dispatch", req("tx_t"));
  assert.equal(r.status, 504);
  assert.match(r.json!.error.message, /timed out after 100ms/);
  assert.match(String(await aborted), /timed out/);
});

test("health, then graceful close: calls in flight finish, new ones are refused", async (t) => {
  let release!: () => void;
  let started!: () => void;
  const inCall = new Promise<void>((r) => (started = r));
  const { w, url } = await start(t, {
    dispatch: async () => {
      started();
      await new Promise<void>((r) => (release = r));
      return { hash: "ab".repeat(32) };
    },
  });
  assert.deepEqual((await post(url + "/healthz", "", "GET")).json, { status: "ok" });
  const call = post(url + "/dispatch", req("tx_g"));
  await inCall;
  const closed = w.close();
  // Closing: no new connection is taken.
  await assert.rejects(fetch(url + "/healthz"));
  release();
  const r = await call;
  assert.equal(r.status, 200);
  assert.equal(r.json!.hash, "ab".repeat(32));
  await closed;
});

test("close cuts a call still running after the grace period", async (t) => {
  let entered!: () => void;
  const inCall = new Promise<void>((r) => (entered = r));
  const { w, url } = await start(t, {
    dispatch: () => {
      entered();
      return new Promise(() => {});
    },
  }, { shutdownGraceMs: 50, timeoutMs: 60_000 });
  const call = new Promise<string>((resolve) => {
    const r = request(url + "/dispatch", { method: "POST" }, () => resolve("answered"));
    r.on("error", (e) => resolve(`cut: ${e.message}`));
    r.end(req("tx_c"));
  });
  await inCall;
  await w.close();
  assert.match(await call, /^cut/);
});

test("signTx output verifies and hashes as built", () => {
  const tx = { from: alice.address, nonce: 1n, fee: "1000", contract: "zkapp", method: "set", args: { x: 1 }, memo: "m" };
  assert.equal(txHash(tx).length, 64);
  assert.equal(verifyTx({ ...tx, signature: "00".repeat(64) }), false);
});
