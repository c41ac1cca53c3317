// intent.js: one intent: its record, every attempt (hash, fee, nonce,
// outcome; the hash links to the chain's explorer when the node has one
// configured) and its history. It refreshes when the stream names it.

import { get } from '../api.js';
import { h, table, badge, fmtTime, fmtAmount, errorBox, section } from '../ui.js';
import { debounce } from './queues.js';

/** explorerLink(tmpl, hash) is the explorer's URL of a transaction, or '' (no explorer, or not http(s)). */
export function explorerLink(tmpl, hash) {
  if (!tmpl || !hash) return '';
  const u = tmpl.includes('{hash}') ? tmpl.split('{hash}').join(encodeURIComponent(hash)) : tmpl + encodeURIComponent(hash);
  return /^https?:\/\//i.test(u) ? u : '';
}

function json(v) {
  if (v === undefined || v === null) return h('span', { class: 'muted' }, 'none');
  return h('pre', null, JSON.stringify(v, null, 2));
}

export default {
  id: 'intent',
  title: 'Intent',
  nav: false,
  engine: 'sequencer',
  async render(el, params, ctx) {
    const uid = params.args[0] || '';
    const rec = h('div', { 'aria-live': 'polite' });
    const attempts = h('div', { id: 'attempts' });
    const hist = h('div', { id: 'history' });
    const tmpl = (ctx.session.chain && ctx.session.chain.explorerTxURL) || '';
    const body = h('div');
    el.append(h('h1', null, 'Intent ', h('code', null, uid)), section('Record', rec), section('Attempts', attempts), section('History', hist),
      section('Data and result', body));
    async function load() {
      let r;
      try {
        r = await get('/v1/transactions/' + encodeURIComponent(uid));
      } catch (e) {
        rec.replaceChildren(errorBox(e));
        return;
      }
      const t = r.transaction || {};
      rec.replaceChildren(h('dl', { class: 'record' },
        h('dt', null, 'State'), h('dd', null, badge(t.state)),
        h('dt', null, 'Queue'), h('dd', null, h('a', { href: '#/queues/' + encodeURIComponent(t.queue || '') }, t.queue || '')),
        h('dt', null, 'Seq'), h('dd', null, String(t.seq ?? '')),
        h('dt', null, 'Type'), h('dd', null, t.type || ''),
        t.idempotencyKey ? [h('dt', null, 'Idempotency key'), h('dd', null, h('code', null, t.idempotencyKey))] : null,
        h('dt', null, 'Retries'), h('dd', null, String(t.retries ?? 0)),
        h('dt', null, 'Created'), h('dd', null, fmtTime(t.createdAt)),
        h('dt', null, 'Updated'), h('dd', null, fmtTime(t.updatedAt)),
        t.error ? [h('dt', null, 'Error'), h('dd', { class: 'error-text' }, t.error)] : null));
      body.replaceChildren(h('dl', { class: 'record' },
        h('dt', null, 'Data'), h('dd', null, json(t.data)),
        h('dt', null, 'Result'), h('dd', null, json(t.result))));
      attempts.replaceChildren(table([
        { label: '#', key: 'n', class: 'num' },
        { label: 'Hash', value: (a) => {
          const u = explorerLink(tmpl, a.hash);
          return u ? h('a', { href: u, class: 'mono', target: '_blank', rel: 'noopener noreferrer' }, a.hash) : h('code', null, a.hash || '');
        } },
        { label: 'Sender', value: (a) => h('code', null, a.sender || '') },
        { label: 'Nonce', key: 'nonce', class: 'num' },
        { label: 'Fee', value: (a) => fmtAmount(a.fee, ctx.session), class: 'num' },
        { label: 'Outcome', value: (a) => (a.outcome ? badge(a.outcome) : h('span', { class: 'muted' }, 'pending')) },
        { label: 'Height', key: 'height', class: 'num' },
        { label: 'At', value: (a) => fmtTime(a.at) },
        { label: 'Error', key: 'error' },
      ], t.attempts || [], { empty: 'No attempt yet.' }));
      hist.replaceChildren(table([
        { label: 'At', value: (e) => fmtTime(e.at) },
        { label: 'From', value: (e) => (e.from ? badge(e.from) : '') },
        { label: 'To', value: (e) => (e.to ? badge(e.to) : '') },
        { label: 'Binding', value: (e) => (e.binding ? h('code', null, e.binding) : '') },
        { label: 'Note', key: 'note' },
      ], r.history || [], { empty: 'No history.' }));
    }
    await load();
    const refresh = debounce(load, 300);
    const off = ctx.onChange((c) => {
      if (c && c.uid === uid) refresh();
    });
    return () => {
      off();
      refresh.cancel();
    };
  },
};
