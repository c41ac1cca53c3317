// senders.js: the senders: state (busy when bound to a queue), the queue
// bound to, balance (from the chain, when the node serves its accounts)
// and next nonce. An admin may cancel a stuck nonce with a no-op.

import { get, post } from '../api.js';
import { h, fill, table, badge, fmtAmount, fmtTime, filters, errorBox, section } from '../ui.js';
import { debounce } from './queues.js';

async function balance(id, session) {
  try {
    const a = await get('/v1/accounts/' + encodeURIComponent(id));
    return fmtAmount(a.balanceExact || a.balance, session);
  } catch (e) {
    return e.code === 'route_not_found' ? 'not served' : 'unknown: ' + e.message;
  }
}

export default {
  id: 'senders',
  title: 'Senders',
  engine: 'sequencer',
  async render(el, params, ctx) {
    const body = h('div', { 'aria-live': 'polite' });
    const msg = h('div', { 'aria-live': 'assertive' });
    let want = params.query.state || '';
    const admin = ctx.can('admin');
    async function cancel(id, btn) {
      msg.replaceChildren();
      btn.disabled = true;
      try {
        const r = await post('/v1/senders/' + encodeURIComponent(id) + '/cancel', {});
        msg.append(h('p', { class: 'card', role: 'status' }, 'Sender ' + r.sender + ': nonce ' + r.nonce + ' is being replaced by a no-op (' + r.then + ').'));
      } catch (e) {
        msg.append(errorBox(e));
      } finally {
        btn.disabled = false;
      }
    }
    async function load() {
      let r;
      try {
        r = await get('/v1/senders');
      } catch (e) {
        body.replaceChildren(errorBox(e));
        return;
      }
      const all = r.senders || [];
      const bal = await Promise.all(all.map((s) => balance(s.id, ctx.session)));
      const rows = all.map((s, i) => ({ ...s, busy: s.queue ? 'BUSY' : 'FREE', balance: bal[i] })).filter((s) => !want || s.busy === want);
      const cols = [
        { label: 'Sender', value: (s) => h('code', null, s.id) },
        { label: 'State', value: (s) => badge(s.busy) },
        { label: 'Queue', value: (s) => (s.queue ? h('a', { href: '#/queues/' + encodeURIComponent(s.queue) }, s.queue) : h('span', { class: 'muted' }, 'none')) },
        { label: 'Balance', key: 'balance', class: 'num' },
        { label: 'Next nonce', key: 'nextNonce', class: 'num' },
        { label: 'Worker', key: 'worker' },
        { label: 'Updated', value: (s) => fmtTime(s.updatedAt) },
      ];
      if (admin) {
        cols.push({ label: 'Action', value: (s) => {
          const b = h('button', { type: 'button', class: 'btn', 'aria-label': 'Cancel the stuck nonce of ' + s.id }, 'Cancel stuck nonce');
          b.addEventListener('click', () => cancel(s.id, b));
          return b;
        } });
      }
      const free = all.filter((s) => !s.queue).length;
      body.replaceChildren(h('p', { class: 'muted' }, all.length + ' senders: ' + (all.length - free) + ' busy, ' + free + ' free.'),
        table(cols, rows, { empty: want ? 'No ' + want.toLowerCase() + ' sender.' : 'No sender configured.' }));
    }
    const f = filters([{ name: 'state', label: 'State', options: ['', 'BUSY', 'FREE'] }], { state: want }, (v) => {
      want = v.state;
      load();
    });
    fill(el, h('h1', null, 'Senders'), section('Senders', f.el, body, msg),
      admin ? null : h('p', { class: 'muted' }, 'Cancelling a stuck nonce needs the admin role.'));
    await load();
    const refresh = debounce(load, 1000);
    const off = ctx.onChange(() => refresh());
    return () => {
      off();
      refresh.cancel();
    };
  },
};
