// The generated client against a tiny local server: the token, paths and
// queries, wei amounts as bigint, errors with the API's codes, ptx_ over
// JSON-RPC; and the event-stream reader.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { OrdoClient, OrdoError, readSSE, type SSEEvent } from "../src/index.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

async function serve(t: { after: (fn: () => unknown) => void }, h: Handler): Promise<string> {
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => h(req, body, res));
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  t.after(() => new Promise((r) => { srv.closeAllConnections(); srv.close(r); }));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, status: number, text: string) => {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(text);
};

test("requests carry the token, the path and the query; bodies keep bigint exact", async (t) => {
  const seen: { method?: string; url?: string; auth?: string; ct?: string; body?: string }[] = [];
  const url = await serve(t, (req, body, res) => {
    seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, ct: req.headers["content-type"], body });
    if (req.url!.startsWith("/v1/transactions?")) return json(res, 200, `{"transactions":[],"next":""}`);
    if (req.url === "/v1/faucet") return json(res, 200, `{"address":"a","balance":18446744073709551615,"nonce":0,"pendingNonce":0}`);
    json(res, 200, `{"transaction":{"uid":"tx_1/x","state":"DONE"},"history":null}`);
  });
  const c = new OrdoClient({ baseURL: url + "/", token: "secret" });
  await c.getV1Transactions({ queue: "claim 1", state: "DONE", limit: 5 });
  const tx = await c.transaction("tx_1/x");
  assert.equal(tx.state, "DONE");
  const acct = await c.postV1Faucet({ body: { address: "a", amount: 18446744073709551615n } });
  assert.equal(acct.balance, 18446744073709551615n);
  assert.deepEqual(seen.map((s) => s.url), ["/v1/transactions?queue=claim+1&state=DONE&limit=5", "/v1/transactions/tx_1%2Fx", "/v1/faucet"]);
  assert.ok(seen.every((s) => s.auth === "Bearer secret"));
  assert.equal(seen[2].body, `{"address":"a","amount":18446744073709551615}`);
  assert.equal(seen[2].ct, "application/json");
});

test("amounts decode as bigint even when small; other integers stay numbers", async (t) => {
  const url = await serve(t, (_req, _b, res) =>
    json(res, 200, `{"blocks":[{"height":3,"minFee":1000,"txs":[{"fee":1210,"nonce":4,"index":0,"hash":"h","from":"f","contract":"zkapp","method":"m","status":"succeeded"}]}]}`),
  );
  const c = new OrdoClient({ baseURL: url });
  const r = await c.getV1Blocks({ from: 1, to: 3 });
  const b = r.blocks![0];
  assert.equal(b.minFee, 1000n);
  assert.equal(b.height, 3);
  assert.equal(b.txs![0].fee, 1210n);
  assert.equal(b.txs![0].nonce, 4);
});

test("error answers are OrdoError with the API's stable code", async (t) => {
  const url = await serve(t, (req, _b, res) => {
    if (req.url === "/v1/transactions/none") return json(res, 404, `{"error":{"code":"not_found","message":"no transaction none"}}`);
    if (req.url === "/v1/transactions") return json(res, 409, `{"error":{"code":"idempotency_conflict","message":"the key was used for other content"}}`);
    res.writeHead(502);
    res.end("bad gateway");
  });
  const c = new OrdoClient({ baseURL: url });
  const cases: [() => Promise<unknown>, number, string, RegExp][] = [
    [() => c.transaction("none"), 404, "not_found", /no transaction none/],
    [() => c.submit({ queue: "q", type: "T", idempotencyKey: "k" }), 409, "idempotency_conflict", /other content/],
    [() => c.getV1Head(), 502, "http_502", /bad gateway/],
    [() => new OrdoClient({ baseURL: "http://127.0.0.1:1" }).getV1Head(), 0, "network", /GET \/v1\/head/],
  ];
  for (const [p, status, code, msg] of cases) {
    await assert.rejects(p, (e: unknown) => e instanceof OrdoError && e.status === status && e.code === code && msg.test(e.message));
  }
});

test("ptx_ methods are JSON-RPC calls; their errors carry the data's code", async (t) => {
  const calls: any[] = [];
  const url = await serve(t, (req, body, res) => {
    const call = JSON.parse(body);
    calls.push({ url: req.url, ...call });
    if (call.method === "ptx_getTransaction") return json(res, 200, `{"jsonrpc":"2.0","id":${call.id},"error":{"code":-32000,"message":"the principal lacks the role","data":{"code":"forbidden"}}}`);
    json(res, 200, `{"jsonrpc":"2.0","id":${call.id},"result":"ptx_1"}`);
  });
  const c = new OrdoClient({ baseURL: url });
  assert.equal(await c.ptx.sendTransaction({ domain: "d", data: 5n }), "ptx_1");
  await assert.rejects(c.ptx.getTransaction("ptx_1"), (e: unknown) => e instanceof OrdoError && e.code === "forbidden" && e.rpcCode === -32000);
  assert.deepEqual(calls.map((c) => [c.url, c.jsonrpc, c.method, JSON.stringify(c.params)]), [
    ["/rpc", "2.0", "ptx_sendTransaction", `[{"domain":"d","data":5}]`],
    ["/rpc", "2.0", "ptx_getTransaction", `["ptx_1"]`],
  ]);
});

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

async function collect(it: AsyncIterable<SSEEvent>): Promise<SSEEvent[]> {
  const out: SSEEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

test("readSSE: fields, comments, multi-line data, line endings, split chunks", async () => {
  const text = "\ufeff: a comment\nid: 1\nevent: change\ndata: {\"a\":\ndata: 1}\n\ndata:no space\r\nretry: 250\r\n\r\nevent: empty\n\nid: 7\rdata\r\rdata: last without a blank line";
  const want: SSEEvent[] = [
    { event: "change", data: `{"a":\n1}`, id: "1" },
    { event: "message", data: "no space", id: "1", retry: 250 },
    { event: "message", data: "", id: "7" },
  ];
  assert.deepEqual(await collect(readSSE(streamOf([text]))), want);
  // The same text cut at every position, one byte at a time, reads the same.
  assert.deepEqual(await collect(readSSE(streamOf([...text]))), want);
  for (let i = 1; i < text.length; i++) {
    assert.deepEqual(await collect(readSSE(streamOf([text.slice(0, i), text.slice(i)]))), want, `cut at ${i}`);
  }
});

test("a stream route against a local server: events as sent, ended by abort", async (t) => {
  let sendMore!: () => void;
  const url = await serve(t, (req, _b, res) => {
    assert.equal(req.headers.accept, "text/event-stream");
    assert.equal(req.headers["last-event-id"], "41");
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(": hello\n\nid: 42\nevent: head\ndata: {\"height\":42}\n\n");
    sendMore = () => res.write("id: 43\nevent: head\ndata: {\"height\":43}\n\n");
  });
  const c = new OrdoClient({ baseURL: url });
  const ac = new AbortController();
  const seen: SSEEvent[] = [];
  for await (const e of c.getV1BlocksSubscribe({}, { signal: ac.signal, lastEventId: "41" })) {
    seen.push(e);
    if (seen.length === 1) sendMore();
    else ac.abort();
  }
  assert.deepEqual(seen, [
    { event: "head", data: `{"height":42}`, id: "42" },
    { event: "head", data: `{"height":43}`, id: "43" },
  ]);
});
