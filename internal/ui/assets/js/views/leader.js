// leader.js: the leader (seed 001). Its channels (each one's account,
// blocked or not, until when) and its events in id order, a page at a
// time, filtered by status; an admin retries a Dead event (POST
// /v1/leader/events/{id}/retry). Live: the change stream of its result
// queues (leader/<i>), and every 5 s for what no stream carries (a tool
// running, a channel blocked or freed).

import { get, post } from '../api.js';
import { h, table, pager, filters, badge, fmtTime, errorBox, section } from '../ui.js';
import { live, muted, short } from '../ui-engines.js';

const PAGE = 25;
const STATUSES = ['', 'Queued', 'Active', 'Successful', 'Dead'];

function outputText(e) {
  const v = e.ok ? e.output : e.error || e.output;
  if (v === undefined || v === null || v === '') return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 160 ? s.slice(0, 160) + '…' : s;
}

export default {
  id: 'leader',
  title: 'Leader',
  engine: 'leader',
  async render(el, params, ctx) {
    const chans = h('div', { 'aria-live': 'polite', 'data-channels': '' });
    const events = h('div', { 'aria-live': 'polite', 'data-events': '' });
    const msg = h('div', { 'aria-live': 'assertive' });
    const admin = ctx.can('admin');
    let status = STATUSES.includes(params.query.status) ? params.query.status : '';

    async function showChannels() {
      let cs;
      try {
        cs = await get('/v1/leader/channels');
      } catch (e) {
        chans.replaceChildren(errorBox(e));
        return;
      }
      chans.replaceChildren(table([
        { label: 'Channel', value: (c) => h('a', { href: '#/queues/' + encodeURIComponent('leader/' + c.index) }, 'leader/' + c.index) },
        { label: 'Account', value: (c) => short(c.account, 16) },
        { label: 'State', value: (c) => badge(c.blocked ? 'Blocked' : 'Open') },
        { label: 'Blocked until', value: (c) => (c.blocked ? fmtTime(c.blockedUntil) : muted('not blocked')) },
        { label: 'Last error', value: (c) => c.lastError || '' },
        { label: 'Updated', value: (c) => fmtTime(c.updatedAt) },
      ], cs || [], { empty: 'No channel: the leader holds no cap.' }));
    }

    async function retry(id, btn) {
      msg.replaceChildren();
      btn.disabled = true;
      try {
        const e = await post('/v1/leader/events/' + id + '/retry', {});
        msg.append(h('p', { class: 'card', role: 'status', 'data-retried': String(e.id) }, 'Event ' + e.id + ' (walk ' + e.walk + ') is ' + e.status + ' again.'));
      } catch (err) {
        msg.append(errorBox(err));
        btn.disabled = false;
      }
      await p.reload();
    }

    const p = pager(async (after) => {
      let r;
      try {
        r = await get('/v1/leader/events', { status, after: after || 0, limit: PAGE });
      } catch (e) {
        events.replaceChildren(errorBox(e));
        return '';
      }
      const evs = r.events || [];
      const cols = [
        { label: 'Id', value: (e) => String(e.id), class: 'num' },
        { label: 'Walk', value: (e) => h('code', null, e.walk) },
        { label: 'Tool', key: 'tool' },
        { label: 'Status', value: (e) => badge(e.status) },
        { label: 'Phase', value: (e) => (e.status === 'Active' ? e.phase || '' : '') },
        { label: 'Retried', key: 'retried', class: 'num' },
        { label: 'Results', key: 'reports', class: 'num' },
        { label: 'Channel', value: (e) => (e.resultUid ? h('a', { href: '#/intent/' + encodeURIComponent(e.resultUid) }, 'leader/' + e.channel) : '') },
        { label: 'Output or error', value: (e) => outputText(e) },
        { label: 'Updated', value: (e) => fmtTime(e.updatedAt) },
      ];
      if (admin) {
        cols.push({ label: 'Action', value: (e) => {
          if (e.status !== 'Dead') return '';
          const b = h('button', { type: 'button', class: 'btn', 'data-retry': String(e.id), 'aria-label': 'Retry event ' + e.id + ' (walk ' + e.walk + ')' }, 'Retry');
          b.addEventListener('click', () => retry(e.id, b));
          return b;
        } });
      }
      events.replaceChildren(table(cols, evs, { empty: status ? 'No ' + status + ' event.' : 'No event yet: each workflow request becomes one.', caption: 'Events in id order' }));
      return evs.length >= PAGE ? String(r.next) : '';
    });

    const f = filters([{ name: 'status', label: 'Status', options: STATUSES }], { status }, (v) => {
      status = v.status;
      history.replaceState(null, '', '#/leader' + (status ? '?status=' + status : ''));
      p.first();
    });
    el.append(h('h1', null, 'Leader'),
      section('Channels', h('p', { class: 'muted' }, 'One per leader cap. A channel whose result failed on chain is blocked for leader.blockFor.'), chans),
      section('Events', f.el, events, p.el, msg));
    if (!admin) el.append(h('p', { class: 'muted' }, 'Retrying a Dead event needs the admin role.'));
    await Promise.all([showChannels(), p.load()]);
    return live(ctx, () => Promise.all([showChannels(), p.reload()]), { queues: (q) => q.startsWith('leader/'), every: 5000 });
  },
};
