// api.js: the dashboard's client of the node's documented API.
//
// Every request carries `Authorization: Bearer <token>` when a token is in
// sessionStorage under `ordo.token` (never a URL, never a cookie). A
// refused request throws an ApiError with the API's status, code and
// sentence.

/** The sessionStorage key of the bearer token. */
export const TOKEN_KEY = 'ordo.token';

/** An error answered by the API: its HTTP status, stable code and sentence. */
export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    /** The decoded body of the answer, when it was JSON (/healthz's 503 carries one). */
    this.body = body;
  }
}

/** The token in sessionStorage, or ''. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

/** Keeps t as the token (sessionStorage only) and forgets the session. */
export function setToken(t) {
  sessionStorage.setItem(TOKEN_KEY, t);
  cached = null;
}

/** Forgets the token and the session. */
export function clearToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  cached = null;
}

function url(path, query) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
  }
  return u.pathname + u.search;
}

function headers(extra) {
  const hs = { Accept: 'application/json', ...extra };
  const t = token();
  if (t) hs.Authorization = 'Bearer ' + t;
  return hs;
}

async function errorOf(res) {
  let code = 'http_' + res.status;
  let message = res.status + ' ' + res.statusText;
  let body;
  try {
    body = await res.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch {
    // not a JSON error body: keep the status line
  }
  return new ApiError(res.status, code, message, body);
}

async function request(method, path, query, body) {
  const init = { method, headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }), cache: 'no-store' };
  if (body !== undefined) init.body = JSON.stringify(body);
  let res;
  try {
    res = await fetch(url(path, query), init);
  } catch (e) {
    throw new ApiError(0, 'network', 'the node did not answer: ' + e.message);
  }
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return null;
  return res.json();
}

/** GET path?query: the decoded JSON, or throws ApiError. */
export async function get(path, query) {
  return request('GET', path, query);
}

/** POST path with body in JSON: the decoded JSON, or throws ApiError. */
export async function post(path, body) {
  return request('POST', path, undefined, body === undefined ? {} : body);
}

/**
 * GET path?query as a server-sent event stream, read with fetch so that the
 * Authorization header is sent. onEvent({id, event, data}) is called for
 * each event (data is decoded JSON when it parses, else the text). On a
 * broken stream it reconnects with backoff (1 s doubling to 30 s), from the
 * last id seen (query `after`). opts.onError(err) hears each failure,
 * opts.onOpen() each connection. Returns close(), which stops it for good.
 * A 401 or 403 stops it too (opts.onError hears the ApiError).
 */
export function stream(path, query, onEvent, opts = {}) {
  let closed = false;
  let lastId = (query && query.after) || '';
  let ctrl = null;
  let delay = 1000;
  let timer = null;

  async function connect() {
    ctrl = new AbortController();
    let res;
    try {
      res = await fetch(url(path, { ...query, after: lastId }), {
        headers: headers({ Accept: 'text/event-stream' }),
        signal: ctrl.signal,
        cache: 'no-store',
      });
      if (!res.ok) {
        const err = await errorOf(res);
        if (err.status === 401 || err.status === 403 || err.status === 404) {
          closed = true;
          if (opts.onError) opts.onError(err);
          return;
        }
        throw err;
      }
      delay = 1000;
      if (opts.onOpen) opts.onOpen();
      await read(res.body);
      if (!closed) throw new ApiError(0, 'stream_ended', 'the change stream ended');
    } catch (e) {
      if (closed) return;
      if (opts.onError) opts.onError(e);
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    }
  }

  async function read(body) {
    const reader = body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    let ev = { id: '', event: 'message', data: [] };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.search(/\r\n|\n|\r/)) >= 0) {
        if (nl === buf.length - 1 && buf[nl] === '\r') break; // a CR at the end: wait, an LF may follow
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (ev.data.length) dispatch(ev);
          ev = { id: '', event: 'message', data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const c = line.indexOf(':');
        const field = c < 0 ? line : line.slice(0, c);
        let val = c < 0 ? '' : line.slice(c + 1);
        if (val.startsWith(' ')) val = val.slice(1);
        if (field === 'id') ev.id = val;
        else if (field === 'event') ev.event = val;
        else if (field === 'data') ev.data.push(val);
      }
    }
  }

  function dispatch(ev) {
    if (ev.id) lastId = ev.id;
    const text = ev.data.join('\n');
    let data = text;
    try {
      data = JSON.parse(text);
    } catch {
      // not JSON: hand the text on
    }
    if (!closed) onEvent({ id: ev.id, event: ev.event, data });
  }

  connect();
  return function close() {
    closed = true;
    clearTimeout(timer);
    if (ctrl) ctrl.abort();
  };
}

let cached = null;

/**
 * The session (GET /v1/session), asked once and cached until the token
 * changes: {principal, roles, devMode, engines, chain: {name,
 * explorerTxURL}, version}. Rejects with ApiError (401 without a valid
 * token outside dev mode).
 */
export function session() {
  if (!cached) {
    cached = get('/v1/session');
    cached.catch(() => {
      cached = null;
    });
  }
  return cached;
}
