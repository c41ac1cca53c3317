// ui-engines.js: helpers the engine views (processors, leader, committee,
// replicas) share, beyond ui.js.

import { post, ApiError } from './api.js';
import { h } from './ui.js';

/**
 * live(ctx, load, {queues, every}) refreshes a view without a reload:
 * on each change of the node's change stream whose queue queues(name)
 * accepts (debounced to one load per 500 ms), and every `every` ms for
 * what no stream carries (0: never). A refresh never overlaps another.
 * Returns the cleanup.
 */
export function live(ctx, load, { queues, every } = {}) {
  let busy = false;
  let again = false;
  let timer = null;
  let stopped = false;
  async function run() {
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      await load();
    } finally {
      busy = false;
      if (again && !stopped) {
        again = false;
        run();
      }
    }
  }
  function soon() {
    clearTimeout(timer);
    timer = setTimeout(run, 500);
  }
  const off = queues ? ctx.onChange((c) => {
    if (c && typeof c.queue === 'string' && queues(c.queue)) soon();
  }) : () => {};
  const tick = every ? setInterval(() => {
    if (!document.hidden) run();
  }, every) : null;
  return () => {
    stopped = true;
    off();
    clearTimeout(timer);
    if (tick) clearInterval(tick);
  };
}

/** stat(key, label, value) is one figure of a .grid, marked data-stat=key. */
export function stat(key, label, value) {
  return h('div', { class: 'stat', 'data-stat': key }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, String(value)));
}

/** record(pairs) is a dl.record of [label, value] pairs (falsy pairs left out). */
export function record(pairs) {
  const dl = h('dl', { class: 'record' });
  for (const p of pairs) {
    if (p) dl.append(h('dt', null, p[0]), h('dd', null, p[1] === undefined || p[1] === null ? '' : p[1]));
  }
  return dl;
}

/** muted(text) is a muted span. */
export function muted(text) {
  return h('span', { class: 'muted' }, text);
}

/** short(id, n) is a long id cut to its first n characters with an ellipsis, in a code element titled with the whole. */
export function short(id, n = 12) {
  const s = String(id || '');
  return h('code', { title: s }, s.length > n + 1 ? s.slice(0, n) + '…' : s);
}

/**
 * rpc(method, params) calls a ptx_ JSON-RPC method (POST /rpc) and
 * resolves to its result; a JSON-RPC error throws an ApiError with its
 * code and message.
 */
export async function rpc(method, params) {
  const r = await post('/rpc', { jsonrpc: '2.0', id: 1, method, params });
  if (r && r.error) throw new ApiError(200, 'rpc_' + r.error.code, r.error.message, r);
  return r ? r.result : null;
}

/** ago(iso, now) is how long before now an ISO time was, as "12 s ago"; '' for none. */
export function ago(iso, now = Date.now()) {
  if (!iso) return '';
  const t = new Date(iso).getTime();
  if (!Number.isFinite(t) || new Date(iso).getFullYear() <= 1) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 120) return s + ' s ago';
  if (s < 7200) return Math.round(s / 60) + ' min ago';
  return Math.round(s / 3600) + ' h ago';
}

/**
 * offsetPager(limit, fetch) adapts an offset-paged read to ui.js's pager:
 * fetch(offset) shows a page and resolves to how many rows it had; the
 * next cursor is the next offset while pages are full.
 */
export function offsetPaging(limit, fetch) {
  return async (cursor) => {
    const offset = Number(cursor || 0);
    const n = await fetch(offset);
    return n >= limit ? String(offset + limit) : '';
  };
}
