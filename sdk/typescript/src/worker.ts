// The worker server: the protocol an ordo node speaks to a remote worker
// (docs/workers.md), served as the Go example worker (examples/worker)
// serves it.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { txJSON, type Tx } from "./devchain.js";
import { RawJSON, RawNumber, parseJSON, stringifyJSON, type JSONValue } from "./json.js";

/** TxnData is the intent the node hands over: its uid (the chain transaction's memo must be it), type and data as submitted. */
export interface TxnData {
  uid: string;
  type: string;
  /** The intent's data (undefined when absent); integers beyond 2^53 are bigint. */
  data: JSONValue | undefined;
  /**
   * The data as JSON text with every number as written (undefined when
   * absent): build args from it (RawJSON) to hash as the node's own
   * dispatcher does, "1.50" staying "1.50".
   */
  dataJSON: string | undefined;
}

/**
 * Sender is the account the attempt must use, with the nonce and fee it
 * must carry. A retry of an attempt that never landed comes with the same
 * nonce and a higher fee.
 */
export interface Sender {
  accountId: string;
  queue: string;
  retries: number;
  nonce: bigint;
  /** The fee, a decimal string (wei per gas on an EVM chain). */
  fee: string;
  /**
   * On a chain with gas (EVM): the gas limit of the attempt this one
   * replaces at the same nonce, a decimal string. A replacement keeps it.
   * Absent on a first attempt: the worker estimates one.
   */
  gas?: string;
}

/** WorkerErrorBody is the error object of an answer. */
export interface WorkerErrorBody {
  message: string;
  code?: string;
  /** No retry can change it: the node ends the transaction FAILED at once. */
  permanent?: boolean;
  [field: string]: unknown;
}

/** TxnResult is every call's answer: the chain transaction's hash, what onSuccess records, and an error. */
export interface TxnResult {
  hash: string;
  done?: unknown;
  error?: unknown;
}

/** BuildTx is what build answers: a transaction whose from, nonce and fee may be left out. */
export type BuildTx = Omit<Tx, "from" | "nonce" | "fee" | "signature"> & Partial<Pick<Tx, "from" | "nonce" | "fee">>;

/** DispatchRequest is the body of POST /dispatch and /build, with the call's abort signal. */
export interface DispatchRequest {
  txnData: TxnData;
  sender: Sender;
  /** Aborted when the call times out or the node hangs up. */
  signal: AbortSignal;
}

/** HookRequest is the body of POST /onSuccess and /onFailure: the landed (or last) attempt's result. */
export interface HookRequest extends DispatchRequest {
  /** onFailure's result.error is the node's reason: {"reason": "..."}. */
  result: TxnResult;
}

/**
 * WorkerHandlers are what a worker implements. A sender's worker (it holds
 * its sender's key and sends) implements dispatch; a type's worker (the
 * node's keystore signs) implements build; both may implement the hooks.
 */
export interface WorkerHandlers {
  /**
   * dispatch builds the chain transaction of txnData.type, signs it with
   * exactly sender.nonce and sender.fee, memo txnData.uid, sends it and
   * answers its hash. Throw a WorkerError (or answer one in error) to fail;
   * any other exception is a retryable error without a hash.
   */
  dispatch?(req: DispatchRequest): Promise<TxnResult> | TxnResult;
  /**
   * build answers the unsigned transaction. The node sets its from, nonce
   * and fee to the sender's it gave (left out, they are filled in from
   * req.sender), signs it and sends it.
   */
  build?(req: DispatchRequest): Promise<BuildTx> | BuildTx;
  /** onSuccess runs once the transaction is DONE; its answer becomes the record's result (done: what it produced). Default: the result as given. */
  onSuccess?(req: HookRequest): Promise<TxnResult> | TxnResult;
  /** onFailure runs once the transaction is FAILED; its answer's error is what it records about the failure. Default: the hash, no error. */
  onFailure?(req: HookRequest): Promise<TxnResult> | TxnResult;
}

/**
 * WorkerError is a failed call's error object. permanent says no retry can
 * change it; hash is the transaction's, when it was signed before the
 * failure (the node then asks the chain about it).
 */
export class WorkerError extends Error {
  readonly code?: string;
  readonly permanent: boolean;
  readonly hash: string;
  constructor(message: string, opts: { code?: string; permanent?: boolean; hash?: string } = {}) {
    super(message);
    this.name = "WorkerError";
    this.code = opts.code;
    this.permanent = opts.permanent ?? false;
    this.hash = opts.hash ?? "";
  }
  /** body is the error object of the answer. */
  body(): WorkerErrorBody {
    const b: WorkerErrorBody = { message: this.message };
    if (this.code) b.code = this.code;
    if (this.permanent) b.permanent = true;
    return b;
  }
}

/** WorkerOptions tune the server. */
export interface WorkerOptions {
  /** Bounds each call; past it the call's signal aborts and the answer is 504. Default 10000 (the node's workerTimeout). */
  timeoutMs?: number;
  /** Bounds reading a request's headers. Default 10000. */
  headersTimeoutMs?: number;
  /** How long close() waits for calls in flight before it cuts them. Default 5000. */
  shutdownGraceMs?: number;
  /** The largest request body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Where errors of the handlers are logged. Default console.error. */
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

/** The protocol's routes (POST), by call. */
export const workerRoutes = ["/dispatch", "/build", "/onSuccess", "/onFailure"] as const;

type Call = (typeof workerRoutes)[number];

class BadRequest extends Error {}

function obj(v: unknown, what: string): Record<string, JSONValue> {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw new BadRequest(`${what} must be a JSON object`);
  return v as Record<string, JSONValue>;
}

function str(o: Record<string, JSONValue>, k: string, what: string): string {
  const v = o[k];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new BadRequest(`${what}.${k} must be a string`);
  return v;
}

function int(o: Record<string, JSONValue>, k: string, what: string): bigint {
  const v = o[k];
  if (v === undefined || v === null) return 0n;
  if ((typeof v === "number" && Number.isInteger(v) && v >= 0) || (typeof v === "bigint" && v >= 0n)) return BigInt(v);
  throw new BadRequest(`${what}.${k} must be an unsigned integer`);
}

/**
 * parseRequest reads a call's body as the Go worker reads it: unknown
 * fields are ignored; a body that is not a JSON object, or whose known
 * fields have the wrong types, is refused.
 */
export function parseRequest(text: string): { txnData: TxnData; sender: Sender; result?: TxnResult } {
  let v: JSONValue;
  let raw: JSONValue;
  try {
    v = parseJSON(text);
    raw = parseJSON(text, { numbers: "raw" });
  } catch (err) {
    throw new BadRequest((err as Error).message);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v) || v instanceof RawNumber) throw new BadRequest("the body must be a JSON object");
  const body = v as Record<string, JSONValue>;
  const td = obj(body.txnData, "txnData");
  const s = obj(body.sender, "sender");
  const fee = s.fee;
  if (fee !== undefined && fee !== null && (typeof fee !== "string" || !/^[0-9]+$/.test(fee))) {
    throw new BadRequest("sender.fee must be a decimal string");
  }
  const gas = s.gas;
  if (gas !== undefined && gas !== null && (typeof gas !== "string" || !/^[0-9]+$/.test(gas))) {
    throw new BadRequest("sender.gas must be a decimal string");
  }
  const retries = int(s, "retries", "sender");
  const out: { txnData: TxnData; sender: Sender; result?: TxnResult } = {
    txnData: {
      uid: str(td, "uid", "txnData"),
      type: str(td, "type", "txnData"),
      data: td.data,
      dataJSON: td.data === undefined ? undefined : stringifyJSON((raw as { txnData: Record<string, JSONValue> }).txnData.data),
    },
    sender: { accountId: str(s, "accountId", "sender"), queue: str(s, "queue", "sender"), retries: Number(retries), nonce: int(s, "nonce", "sender"), fee: (fee as string | undefined) ?? "0" },
  };
  if (typeof gas === "string") out.sender.gas = gas;
  if (body.result !== undefined && body.result !== null) {
    const r = obj(body.result, "result");
    out.result = { hash: str(r, "hash", "result"), done: r.done ?? null, error: r.error ?? null };
  }
  return out;
}

function errorAnswer(err: unknown, hash = ""): TxnResult {
  if (err instanceof WorkerError) return { hash: err.hash || hash, error: err.body() };
  return { hash, error: { message: err instanceof Error ? err.message : String(err) } };
}

/**
 * Worker serves the protocol: POST /dispatch, /build, /onSuccess and
 * /onFailure, each answering 200 with its JSON answer (an error in it when
 * the call failed); 400 for a body it cannot read; 404 for a call the
 * handlers do not implement (or an unknown path); 405 for another method;
 * 504 past the timeout. GET /healthz answers {"status":"ok"} (503 while
 * closing).
 */
export class Worker {
  readonly server: Server;
  private readonly opts: Required<Omit<WorkerOptions, "log">> & Pick<WorkerOptions, "log">;
  private closing = false;
  private inFlight = 0;
  private closed?: Promise<void>;

  constructor(
    private readonly handlers: WorkerHandlers,
    opts: WorkerOptions = {},
  ) {
    this.opts = {
      timeoutMs: opts.timeoutMs ?? 10_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 10_000,
      shutdownGraceMs: opts.shutdownGraceMs ?? 5_000,
      maxBodyBytes: opts.maxBodyBytes ?? 1 << 20,
      log: opts.log,
    };
    this.server = createServer((req, res) => void this.serve(req, res));
    this.server.headersTimeout = this.opts.headersTimeoutMs;
    this.server.requestTimeout = this.opts.timeoutMs + this.opts.headersTimeoutMs;
  }

  private log(msg: string, fields?: Record<string, unknown>): void {
    if (this.opts.log) this.opts.log(msg, fields);
    else console.error(`worker: ${msg}`, fields ?? "");
  }

  /** listen starts serving on port (0: any free one) and host (default 127.0.0.1); it resolves to the URL to give the node. */
  listen(port = 0, host = "127.0.0.1"): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        const a = this.server.address() as AddressInfo;
        const h = a.family === "IPv6" ? `[${a.address}]` : a.address;
        resolve(`http://${h}:${a.port}`);
      });
    });
  }

  /**
   * close stops taking connections, lets the calls in flight finish for up
   * to shutdownGraceMs, then cuts what is left. It resolves once the
   * server is closed.
   */
  close(): Promise<void> {
    if (this.closed) return this.closed;
    this.closing = true;
    this.closed = new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      const cut = setTimeout(() => this.server.closeAllConnections(), this.opts.shutdownGraceMs);
      cut.unref();
      const idle = setInterval(() => {
        if (this.inFlight === 0) {
          this.server.closeIdleConnections();
        }
      }, 20);
      idle.unref();
      this.server.once("close", () => {
        clearTimeout(cut);
        clearInterval(idle);
      });
    });
    return this.closed;
  }

  /** closeOnSignals closes the worker on SIGTERM and SIGINT, then lets the process exit. */
  closeOnSignals(signals: NodeJS.Signals[] = ["SIGTERM", "SIGINT"]): void {
    const stop = (sig: NodeJS.Signals) => {
      this.log("closing", { signal: sig });
      void this.close().then(() => {
        for (const s of signals) process.off(s, stop);
      });
    };
    for (const s of signals) process.once(s, stop);
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    const text = stringifyJSON(body) + "\n";
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz") {
      if (req.method !== "GET" && req.method !== "HEAD") return this.send(res, 405, { error: { message: "use GET" } }, { Allow: "GET, HEAD" });
      return this.closing ? this.send(res, 503, { status: "closing" }) : this.send(res, 200, { status: "ok" });
    }
    if (!(workerRoutes as readonly string[]).includes(path)) return this.send(res, 404, { error: { message: `no route ${path}` } });
    if (req.method !== "POST") return this.send(res, 405, { error: { message: "use POST" } }, { Allow: "POST" });
    const call = path as Call;
    const handler = this.handlerOf(call);
    if (!handler) {
      req.resume();
      return this.send(res, 404, { error: { message: `this worker does not implement ${call.slice(1)}` } });
    }
    this.inFlight++;
    const ac = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) ac.abort(new Error("the node hung up"));
    };
    res.on("close", onClose);
    const timer = setTimeout(() => {
      ac.abort(new Error(`timed out after ${this.opts.timeoutMs}ms`));
      this.send(res, 504, { error: { message: `${call.slice(1)} timed out after ${this.opts.timeoutMs}ms` } });
    }, this.opts.timeoutMs);
    try {
      let body: ReturnType<typeof parseRequest>;
      try {
        body = parseRequest(await this.readBody(req));
      } catch (err) {
        if (err instanceof BadRequest) return this.send(res, 400, { error: { message: "bad request body: " + err.message } });
        throw err;
      }
      const answer = await handler({ ...body, signal: ac.signal });
      this.send(res, 200, answer);
    } catch (err) {
      this.log(`${call.slice(1)} failed`, { err: String(err) });
      this.send(res, 500, { error: { message: String(err) } });
    } finally {
      clearTimeout(timer);
      res.off("close", onClose);
      this.inFlight--;
    }
  }

  private readBody(req: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let n = 0;
      req.on("data", (c: Buffer) => {
        n += c.length;
        if (n > this.opts.maxBodyBytes) {
          // Answered at once; the rest is read and dropped, so that the
          // node reads the answer rather than a reset connection.
          reject(new BadRequest(`the body is over ${this.opts.maxBodyBytes} bytes`));
          chunks.length = 0;
          return;
        }
        chunks.push(c);
      });
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      req.on("error", reject);
    });
  }

  // handlerOf wraps the user's handler of a call into one that always
  // answers the protocol's JSON (errors inside it).
  private handlerOf(call: Call): ((r: HookRequest | DispatchRequest) => Promise<unknown>) | undefined {
    const h = this.handlers;
    switch (call) {
      case "/dispatch": {
        const f = h.dispatch;
        if (!f) return undefined;
        return async (r) => {
          try {
            return normalizeResult(await f.call(h, r));
          } catch (err) {
            return errorAnswer(err);
          }
        };
      }
      case "/build": {
        const f = h.build;
        if (!f) return undefined;
        return async (r) => {
          try {
            const tx = await f.call(h, r);
            const full: Tx = { ...tx, from: tx.from || r.sender.accountId, nonce: tx.nonce ?? r.sender.nonce, fee: tx.fee ?? r.sender.fee };
            return { tx: new RawJSON(txJSON(full)) };
          } catch (err) {
            const e = errorAnswer(err);
            return { error: e.error };
          }
        };
      }
      case "/onSuccess": {
        const f = h.onSuccess;
        return async (r) => {
          const given = (r as HookRequest).result ?? { hash: "" };
          if (!f) return { hash: given.hash, done: given.done ?? null };
          try {
            return normalizeResult(await f.call(h, { ...(r as HookRequest), result: given }));
          } catch (err) {
            return errorAnswer(err, given.hash);
          }
        };
      }
      case "/onFailure": {
        const f = h.onFailure;
        return async (r) => {
          const given = (r as HookRequest).result ?? { hash: "" };
          if (!f) return { hash: given.hash };
          try {
            return normalizeResult(await f.call(h, { ...(r as HookRequest), result: given }));
          } catch (err) {
            return errorAnswer(err, given.hash);
          }
        };
      }
    }
  }
}

function normalizeResult(r: TxnResult | undefined): TxnResult {
  const out: TxnResult = { hash: r?.hash ?? "" };
  if (r?.done !== undefined) out.done = r.done;
  if (r?.error !== undefined && r.error !== null) out.error = r.error;
  return out;
}

/**
 * serveWorker starts a worker on host:port, closes it on SIGTERM and
 * SIGINT, and resolves to it and its URL.
 */
export async function serveWorker(handlers: WorkerHandlers, opts: WorkerOptions & { port?: number; host?: string } = {}): Promise<{ worker: Worker; url: string }> {
  const worker = new Worker(handlers, opts);
  const url = await worker.listen(opts.port ?? 0, opts.host ?? "127.0.0.1");
  worker.closeOnSignals();
  return { worker, url };
}
