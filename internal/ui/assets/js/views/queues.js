// queues.js: the queues (each one's depth by state, its sender, its
// current transaction) and a queue's page (its intents in FIFO order,
// a page at a time (the route's limit, else 25), filtered by state). Both
// refresh on the change stream.

import { get } from '../api.js';
import { h, table, pager, filters, badge, fmtTime, errorBox, link, section } from '../ui.js';

/** The intent states of the sequencer, in the order of a life. */
export const STATES = ['WAITING', 'REVISION', 'RETRY', 'DONE', 'FAILED'];

const PAGE = 25;

function enc(s) {
  return encodeURIComponent(s);
}

function countsCell(counts) {
  const parts = STATES.filter((s) => counts && counts[s]).map((s) => h('span', { class: 'count' }, badge(s), ' ', String(counts[s])));
  return parts.length ? h('span', { class: 'row' }, parts) : h('span', { class: 'muted' }, 'empty');
}

function txLink(uid) {
  return uid ? h('a', { href: '#/intent/' + enc(uid), class: 'mono' }, uid) : '';
}

/** Debounces fn: one call per wait ms at most, the last one wins. */
export function debounce(fn, wait) {
  let t = null;
  const d = () => {
    clearTimeout(t);
    t = setTimeout(fn, wait);
  };
  d.cancel = () => clearTimeout(t);
  return d;
}

async function list(el, ctx) {
  const body = h('div', { 'aria-live': 'polite' });
  const p = pager(async (cursor) => {
    let r;
    try {
      r = await get('/v1/queues', { limit: PAGE, cursor });
    } catch (e) {
      body.replaceChildren(errorBox(e));
      return '';
    }
    const qs = r.queues || [];
    const details = await Promise.all(qs.map((q) => get('/v1/queues/' + enc(q.name)).catch(() => null)));
    const rows = qs.map((q, i) => ({ q, counts: details[i] ? details[i].counts : null }));
    body.replaceChildren(table([
      { label: 'Queue', value: (r) => link('#/queues/' + enc(r.q.name), r.q.name) },
      { label: 'State', value: (r) => badge(r.q.state || 'idle') },
      { label: 'Depth by state', value: (r) => countsCell(r.counts) },
      { label: 'Sender', value: (r) => (r.q.sender ? h('code', null, r.q.sender) : h('span', { class: 'muted' }, 'none')) },
      { label: 'Current transaction', value: (r) => txLink(r.q.txUid) },
      { label: 'Updated', value: (r) => fmtTime(r.q.updatedAt) },
    ], rows, { empty: 'No queue yet: a queue appears with its first intent.', caption: 'Queues in the order of their names' }));
    return r.next;
  });
  el.append(h('h1', null, 'Queues'), section('All queues', body, p.el));
  await p.load();
  const refresh = debounce(() => p.reload(), 500);
  const off = ctx.onChange(() => refresh());
  return () => {
    off();
    refresh.cancel();
  };
}

/** pageSize is the query's limit (1 to 100), else PAGE. */
function pageSize(query) {
  const n = Number.parseInt(query.limit, 10);
  return n >= 1 && n <= 100 ? n : PAGE;
}

async function one(el, name, query, ctx) {
  const limit = pageSize(query);
  const head = h('div', { 'aria-live': 'polite' });
  const body = h('div');
  let state = query.state || '';
  async function showHead() {
    try {
      const r = await get('/v1/queues/' + enc(name));
      const q = r.queue || {};
      head.replaceChildren(h('dl', { class: 'record' },
        h('dt', null, 'State'), h('dd', null, badge(q.state || 'idle')),
        h('dt', null, 'Depth by state'), h('dd', null, countsCell(r.counts)),
        h('dt', null, 'Sender'), h('dd', null, q.sender ? h('code', null, q.sender) : h('span', { class: 'muted' }, 'none')),
        h('dt', null, 'Current transaction'), h('dd', null, txLink(q.txUid) || h('span', { class: 'muted' }, 'none')),
        q.delayUntil ? [h('dt', null, 'Delayed until'), h('dd', null, fmtTime(q.delayUntil))] : null,
        h('dt', null, 'Updated'), h('dd', null, fmtTime(q.updatedAt)),
        r.replication ? [h('dt', null, 'Replica set'), h('dd', null, h('pre', null, JSON.stringify(r.replication, null, 2)))] : null));
    } catch (e) {
      head.replaceChildren(errorBox(e));
    }
  }
  const p = pager(async (cursor) => {
    try {
      const r = await get('/v1/transactions', { queue: name, state, limit, cursor });
      body.replaceChildren(table([
        { label: 'Seq', key: 'seq', class: 'num' },
        { label: 'Intent', value: (t) => txLink(t.uid) },
        { label: 'Type', key: 'type' },
        { label: 'State', value: (t) => badge(t.state) },
        { label: 'Retries', key: 'retries', class: 'num' },
        { label: 'Attempts', value: (t) => String((t.attempts || []).length), class: 'num' },
        { label: 'Created', value: (t) => fmtTime(t.createdAt) },
        { label: 'Updated', value: (t) => fmtTime(t.updatedAt) },
      ], r.transactions || [], { empty: state ? 'No intent in state ' + state + '.' : 'No intent in this queue.', caption: 'Intents in FIFO order' }));
      return r.next;
    } catch (e) {
      body.replaceChildren(errorBox(e));
      return '';
    }
  });
  const f = filters([{ name: 'state', label: 'State', options: ['', ...STATES] }], { state }, (v) => {
    state = v.state;
    const q = new URLSearchParams();
    if (state) q.set('state', state);
    if (limit !== PAGE) q.set('limit', String(limit));
    history.replaceState(null, '', '#/queues/' + enc(name) + (q.toString() ? '?' + q : ''));
    p.first();
  });
  el.append(h('p', null, h('a', { href: '#/queues' }, '← All queues')), h('h1', null, 'Queue ', h('code', null, name)),
    section('The queue', head), section('Its intents', f.el, body, p.el));
  await Promise.all([showHead(), p.load()]);
  const refresh = debounce(() => {
    showHead();
    p.reload();
  }, 500);
  const off = ctx.onChange((c) => {
    if (!c || !c.queue || c.queue === name) refresh();
  });
  return () => {
    off();
    refresh.cancel();
  };
}

export default {
  id: 'queues',
  title: 'Queues',
  engine: 'sequencer',
  render(el, params, ctx) {
    if (params.args.length > 0) return one(el, params.args[0], params.query, ctx);
    return list(el, ctx);
  },
};
