// processors.js: the processors (seed 002). The list (GET /v1/processors,
// paged by name); a processor's page: its counts, its High and Medium
// queues of batches with each one's progress (paged by offset), its
// callbacks and their delivery (paged by seq), and pause and resume for
// its owner or an admin. Live: the change stream of its executions'
// queues (processor/<name>…), and every 5 s for what no stream carries
// (callback deliveries, ticks that start nothing).

import { get, post } from '../api.js';
import { h, table, pager, badge, fmtTime, errorBox, link, section } from '../ui.js';
import { live, stat, record, muted, offsetPaging } from '../ui-engines.js';

const PAGE = 20;

function enc(s) {
  return encodeURIComponent(s);
}

/** progress(b) says how far a batch got: actions done, attempts, the execution in flight. */
export function progress(b) {
  const st = b.body || {};
  const spec = st.spec || {};
  const msgs = (spec.msgs || []).length;
  const atomic = spec.actionsConfig && spec.actionsConfig.atomic;
  const done = st.outcome ? (st.outcome.executed || 0) : atomic ? 0 : st.next || 0;
  const parts = [atomic ? 'atomic, ' + msgs + (msgs === 1 ? ' call' : ' calls') : done + ' of ' + msgs + ' actions done'];
  if (st.started) parts.push(st.started + ' executions');
  if (st.tries) parts.push(st.tries + ' failed');
  return parts.join(', ');
}

function batchRows(name, bs) {
  return table([
    { label: 'Position', value: (b) => String(b.position), class: 'num' },
    { label: 'Batch', value: (b) => h('code', null, b.id) },
    { label: 'State', value: (b) => badge(b.state) },
    { label: 'Progress', value: (b) => progress(b) },
    { label: 'In flight', value: (b) => (b.body && b.body.uid ? h('a', { href: '#/intent/' + enc(b.body.uid), class: 'mono' }, b.body.exec || b.body.uid) : muted('none')) },
    { label: 'Last error', value: (b) => (b.body && b.body.lastError) || '' },
    { label: 'Added', value: (b) => fmtTime(b.createdAt) },
  ], bs, { empty: 'No batch queued.' });
}

function queueSection(name, priority, label) {
  const body = h('div', { 'aria-live': 'polite', 'data-queue': priority });
  const p = pager(offsetPaging(PAGE, async (offset) => {
    let r;
    try {
      r = await get('/v1/processors/' + enc(name) + '/queues/' + priority, { offset, limit: PAGE });
    } catch (e) {
      body.replaceChildren(errorBox(e));
      return 0;
    }
    const bs = (r.batches || []).map((b, i) => ({ ...b, position: offset + i }));
    body.replaceChildren(batchRows(name, bs));
    return bs.length;
  }));
  return { el: section(label, body, p.el), p };
}

function callbackSection(name) {
  const body = h('div', { 'aria-live': 'polite', 'data-callbacks': '' });
  const p = pager(async (after) => {
    let r;
    try {
      r = await get('/v1/processors/' + enc(name) + '/callbacks', { after: after || 0, limit: PAGE });
    } catch (e) {
      body.replaceChildren(errorBox(e));
      return '';
    }
    const cbs = r.callbacks || [];
    body.replaceChildren(table([
      { label: 'Seq', key: 'seq', class: 'num' },
      { label: 'Batch', value: (c) => h('code', null, c.batchId) },
      { label: 'Outcome', value: (c) => (c.body && c.body.outcome ? badge(c.body.outcome.status) : '') },
      { label: 'Executed', value: (c) => (c.body && c.body.outcome ? String(c.body.outcome.executed || 0) : ''), class: 'num' },
      { label: 'Delivery', value: (c) => badge(c.state) },
      { label: 'Attempts', key: 'attempts', class: 'num' },
      { label: 'Delivered', value: (c) => fmtTime(c.deliveredAt) },
      { label: 'Next try', value: (c) => (c.state === 'pending' ? fmtTime(c.nextAt) : '') },
      { label: 'Last error', key: 'lastError' },
    ], cbs, { empty: 'No callback yet: each batch reports its outcome once.' }));
    return cbs.length >= PAGE ? String(r.next) : '';
  });
  return { el: section('Callbacks', h('p', { class: 'muted' }, 'Delivery: stored (no callback URL), pending (retried with backoff) or delivered.'), body, p.el), p };
}

async function list(el, ctx) {
  const body = h('div', { 'aria-live': 'polite' });
  const p = pager(async (after) => {
    let r;
    try {
      r = await get('/v1/processors', { after, limit: PAGE });
    } catch (e) {
      body.replaceChildren(errorBox(e));
      return '';
    }
    body.replaceChildren(table([
      { label: 'Processor', value: (x) => link('#/processors/' + enc(x.name), x.name) },
      { label: 'Owner', key: 'owner' },
      { label: 'State', value: (x) => badge(x.paused ? 'Paused' : 'Running') },
      { label: 'Lanes', key: 'lanes', class: 'num' },
      { label: 'Auto tick', value: (x) => (x.autoTick ? x.autoTick / 1e6 + ' ms' : 'off') },
      { label: 'Callback URL', value: (x) => x.callbackURL || muted('none: callbacks are stored') },
      { label: 'Created', value: (x) => fmtTime(x.createdAt) },
    ], r.processors || [], { empty: 'No processor yet: an admin creates one (POST /v1/processors).', caption: 'Processors in the order of their names' }));
    return r.next;
  });
  el.append(h('h1', null, 'Processors'), section('All processors', body, p.el));
  await p.load();
  return live(ctx, () => p.reload(), { queues: (q) => q.startsWith('processor/'), every: 5000 });
}

/** mayAct reports whether the session may pause and resume processor p: its owner, an admin, or dev mode. */
function mayAct(ctx, p) {
  const s = ctx.session || {};
  return ctx.can('admin') || (s.principal && s.principal === p.owner);
}

async function one(el, name, ctx) {
  const head = h('div', { 'aria-live': 'polite' });
  const actions = h('div', { class: 'row' });
  const msg = h('div', { 'aria-live': 'assertive' });
  const high = queueSection(name, 'high', 'High queue');
  const medium = queueSection(name, 'medium', 'Medium queue');
  const cbs = callbackSection(name);
  let proc = null;

  async function act(what, btn) {
    msg.replaceChildren();
    btn.disabled = true;
    try {
      await post('/v1/processors/' + enc(name) + '/' + what, {});
      msg.append(h('p', { class: 'card', role: 'status' }, 'Processor ' + name + (what === 'pause' ? ' paused.' : ' resumed.')));
    } catch (e) {
      msg.append(errorBox(e));
    } finally {
      btn.disabled = false;
    }
    await showHead();
  }

  async function showHead() {
    let r;
    try {
      r = await get('/v1/processors/' + enc(name));
    } catch (e) {
      head.replaceChildren(errorBox(e));
      actions.replaceChildren();
      return false;
    }
    proc = r.processor;
    const c = r.counts || {};
    const q = c.queued || {};
    const cb = c.callbacks || {};
    head.replaceChildren(
      h('div', { class: 'grid' },
        stat('state', 'State', proc.paused ? 'Paused' : 'Running'),
        stat('high', 'High queued', q.high || 0),
        stat('medium', 'Medium queued', q.medium || 0),
        stat('executing', 'Executing', c.executing || 0),
        stat('pending', 'Awaiting confirmation', c.pending || 0),
        stat('done', 'Done', c.done || 0),
        stat('callbacks-delivered', 'Callbacks delivered', cb.delivered || 0),
        stat('callbacks-pending', 'Callbacks pending', cb.pending || 0),
        stat('callbacks-stored', 'Callbacks stored', cb.stored || 0)),
      record([
        ['Owner', proc.owner],
        ['Lanes', String(proc.lanes)],
        ['Auto tick', proc.autoTick ? proc.autoTick / 1e6 + ' ms' : 'off'],
        ['Callback URL', proc.callbackURL || muted('none: callbacks are stored')],
        ['Updated', fmtTime(proc.updatedAt)],
      ]));
    actions.replaceChildren();
    if (mayAct(ctx, proc)) {
      const what = proc.paused ? 'resume' : 'pause';
      const b = h('button', { type: 'button', class: 'btn primary', 'data-action': what }, proc.paused ? 'Resume' : 'Pause');
      b.addEventListener('click', () => act(what, b));
      actions.append(b, muted(proc.paused ? ' Ticks answer ProcessorPaused until it resumes.' : ' A paused processor starts no batch.'));
    } else {
      actions.append(muted('Pause and resume need the owner (' + proc.owner + ') or an admin.'));
    }
    return true;
  }

  el.append(h('h1', null, 'Processor ', h('code', null, name)), h('p', null, link('#/processors', '← All processors')),
    section('Processor', head, actions, msg), high.el, medium.el, cbs.el);
  if (!(await showHead())) return null;
  await Promise.all([high.p.load(), medium.p.load(), cbs.p.load()]);
  const load = () => Promise.all([showHead(), high.p.reload(), medium.p.reload(), cbs.p.reload()]);
  return live(ctx, load, { queues: (q) => q === 'processor/' + name || q.startsWith('processor/' + name + '/'), every: 5000 });
}

export default {
  id: 'processors',
  title: 'Processors',
  engine: 'processor',
  render(el, params, ctx) {
    return params.args[0] ? one(el, params.args[0], ctx) : list(el, ctx);
  },
};
