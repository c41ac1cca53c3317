// The runtime of the generated client (src/generated/api.ts): requests
// with the bearer token, answers parsed without lossy numbers, wei amounts
// as bigint, errors as OrdoError, JSON-RPC calls and event streams.

import { OrdoError, errorFromResponse } from "./errors.js";
import { parseJSON, stringifyJSON, type JSONValue } from "./json.js";
import { readSSE, type SSEEvent } from "./sse.js";

/** ClientOptions configure a client of a node. */
export interface ClientOptions {
  /** The node's base URL, e.g. http://127.0.0.1:7070. */
  baseURL: string;
  /** A principal's bearer token (none for a node in dev mode). */
  token?: string;
  /** Bounds each request (not a stream). Default 30000. */
  timeoutMs?: number;
  /** The fetch to use. Default the global fetch (Node 18+). */
  fetch?: typeof fetch;
}

/** RequestOptions are per call. */
export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * A Shape says where a decoded answer holds wei amounts (integers that
 * become bigint): "big", a schema's name, an array's items, a map's
 * values, or the alternatives of a union.
 */
export type Shape = "big" | string | { arr: Shape } | { map: Shape } | { any: Shape[] };

/** revive turns the amounts of a decoded value into bigint, following shape. */
export function revive(v: unknown, shape: Shape | undefined, shapes: Record<string, Record<string, Shape>>): unknown {
  if (shape === undefined || v === null || v === undefined) return v;
  if (shape === "big") return typeof v === "number" || typeof v === "bigint" ? BigInt(v) : v;
  if (typeof shape === "string") {
    const props = shapes[shape];
    if (!props || typeof v !== "object" || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    for (const [k, s] of Object.entries(props)) if (k in o) o[k] = revive(o[k], s, shapes);
    return o;
  }
  if ("arr" in shape) return Array.isArray(v) ? v.map((x) => revive(x, shape.arr, shapes)) : v;
  if ("map" in shape) {
    if (typeof v !== "object" || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = revive(o[k], shape.map, shapes);
    return o;
  }
  for (const s of shape.any) v = revive(v, s, shapes);
  return v;
}

/** A request the generated methods make. */
export interface Call {
  method: string;
  /** The path with its parameters filled in. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** "json" (the default), "text" or "stream". */
  answer?: "json" | "text" | "stream";
  shape?: Shape;
}

/** ClientBase sends the generated client's requests. */
export class ClientBase {
  protected readonly base: string;
  private rpcID = 0;
  constructor(
    protected readonly opts: ClientOptions,
    private readonly shapes: Record<string, Record<string, Shape>> = {},
  ) {
    this.base = opts.baseURL.replace(/\/+$/, "");
  }

  private url(c: Call): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined && v !== null) q.append(k, String(v));
    const qs = q.toString();
    return this.base + c.path + (qs ? "?" + qs : "");
  }

  private headers(extra: Record<string, string> | undefined, accept: string, body: boolean): Record<string, string> {
    const h: Record<string, string> = { Accept: accept, ...extra };
    if (body) h["Content-Type"] = "application/json";
    if (this.opts.token) h.Authorization = `Bearer ${this.opts.token}`;
    return h;
  }

  private async fetch(c: Call, o: RequestOptions, accept: string, timeout: boolean): Promise<Response> {
    const signals: AbortSignal[] = [];
    if (o.signal) signals.push(o.signal);
    if (timeout) signals.push(AbortSignal.timeout(this.opts.timeoutMs ?? 30_000));
    const mutating = c.method !== "GET" && c.method !== "HEAD";
    const body = c.body !== undefined ? stringifyJSON(c.body) : mutating ? "" : undefined;
    let resp: Response;
    try {
      resp = await (this.opts.fetch ?? fetch)(this.url(c), {
        method: c.method,
        headers: this.headers(o.headers, accept, mutating),
        body,
        signal: signals.length ? anyOf(signals) : undefined,
      });
    } catch (err) {
      throw new OrdoError(0, "network", `${c.method} ${c.path}: ${(err as Error).message}`);
    }
    if (!resp.ok) throw await errorFromResponse(resp);
    return resp;
  }

  /** request sends a call and decodes its answer. */
  protected async request<T>(c: Call, o: RequestOptions = {}): Promise<T> {
    if (c.answer === "stream") throw new TypeError("use stream for an event stream");
    const resp = await this.fetch(c, o, c.answer === "text" ? "text/plain" : "application/json", true);
    const text = await resp.text();
    if (c.answer === "text") return text as T;
    if (text.trim() === "") return undefined as T;
    return revive(parseJSON(text), c.shape, this.shapes) as T;
  }

  /**
   * stream opens an event stream (text/event-stream) and yields its
   * events until it ends or o.signal aborts; there is no request timeout.
   * Give lastEventId to resume after an event.
   */
  protected async *stream(c: Call, o: RequestOptions & { lastEventId?: string } = {}): AsyncGenerator<SSEEvent> {
    const headers = { ...o.headers };
    if (o.lastEventId) headers["Last-Event-ID"] = o.lastEventId;
    const resp = await this.fetch(c, { ...o, headers }, "text/event-stream", false);
    if (!resp.body) return;
    yield* readSSE(resp.body, o.signal);
  }

  /** rpc calls a JSON-RPC 2.0 method of POST /rpc (params by position). */
  protected async rpc<T>(method: string, params: unknown[], shape: Shape | undefined, o: RequestOptions = {}): Promise<T> {
    const id = ++this.rpcID;
    const resp = await this.fetch({ method: "POST", path: "/rpc", body: { jsonrpc: "2.0", id, method, params } }, o, "application/json", true);
    const out = parseJSON(await resp.text()) as { result?: JSONValue; error?: { code: number; message: string; data?: { code?: string } } };
    if (out.error) {
      const e = out.error;
      throw new OrdoError(resp.status, e.data?.code ?? `rpc_${e.code}`, e.message, undefined, Number(e.code));
    }
    return revive(out.result ?? null, shape, this.shapes) as T;
  }
}

function anyOf(signals: AbortSignal[]): AbortSignal {
  if (signals.length === 1) return signals[0];
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
