// replicas.js: the replicated queues (the state machine manager). Its
// status (GET /v1/smm: monitoring, the registry mapping, its four job
// queues) and each replica set naming this node (GET /v1/smm/sets, paged
// by queue): members, version, and each secondary's sync lag behind the
// primary as this node sees them, with a chart of the largest lag since
// the page opened. Live: every 5 s (monitoring gathers the other members'
// heads; no stream carries them), and the change stream of the sets'
// queues.

import { get } from '../api.js';
import { h, table, pager, filters, badge, fmtTime, errorBox, section, sparkline } from '../ui.js';
import { live, stat, record, muted, short } from '../ui-engines.js';

const PAGE = 20;
const SAMPLES = 60; // 5 minutes of 5-second refreshes

export default {
  id: 'replicas',
  title: 'Replicas',
  engine: 'smm',
  async render(el, params, ctx) {
    const status = h('div', { 'aria-live': 'polite', 'data-smm': '' });
    const sets = h('div', { 'aria-live': 'polite', 'data-sets': '' });
    const chart = h('div', { 'data-lag-chart': '' });
    const lags = [];
    const shown = new Set();
    let role = ['primary', 'secondary'].includes(params.query.role) ? params.query.role : '';

    async function showStatus() {
      let s;
      try {
        s = await get('/v1/smm');
      } catch (e) {
        status.replaceChildren(errorBox(e));
        return;
      }
      status.replaceChildren(
        h('div', { class: 'grid' },
          stat('primary-of', 'Primary of', s.primaryOf),
          stat('secondary-of', 'Secondary of', s.secondaryOf),
          stat('cycles', 'Monitoring cycles', s.cycles),
          stat('mapping', 'Registry mapping', s.mappingFresh ? 'fresh' : 'stale')),
        record([
          ['This node', h('code', null, s.node)],
          ['Last cycle', s.lastCycle ? s.lastCycle + ', ended ' + fmtTime(s.lastCycleEnd) : muted('none yet')],
          ['Registry read', fmtTime(s.mappingReadAt) || muted('not yet')],
          ['Monitoring now', (s.slice || []).length ? (s.slice || []).join(', ') : muted('no slice')],
        ]),
        table([
          { label: 'Job queue', key: 'name' },
          { label: 'Pending', key: 'pending', class: 'num' },
          { label: 'Running', key: 'running', class: 'num' },
          { label: 'Failed', key: 'failed', class: 'num' },
        ], s.queues || [], { caption: 'The state machine manager\u2019s job queues' }));
    }

    const p = pager(async (after) => {
      let r;
      try {
        r = await get('/v1/smm/sets', { after, limit: PAGE });
      } catch (e) {
        sets.replaceChildren(errorBox(e));
        return '';
      }
      const all = r.sets || [];
      const rows = [];
      let worst = 0;
      shown.clear();
      for (const s of all) {
        shown.add(s.queue);
        for (const m of s.members || []) worst = Math.max(worst, m.lag || 0);
        if (role && s.self !== role) continue;
        for (const m of s.members || []) rows.push({ set: s, m });
      }
      lags.push(worst);
      if (lags.length > SAMPLES) lags.shift();
      chart.replaceChildren(sparkline(lags, { label: 'Largest sync lag on this page', unit: 'entries' }));
      sets.replaceChildren(table([
        { label: 'Queue', value: (x) => h('a', { href: '#/queues/' + encodeURIComponent(x.set.queue) }, x.set.queue) },
        { label: 'Version', value: (x) => String(x.set.version), class: 'num' },
        { label: 'Member', value: (x) => short(x.m.node, 14) },
        { label: 'Role', value: (x) => badge(x.m.role) },
        { label: 'Head (clock)', value: (x) => String(x.m.clock), class: 'num' },
        { label: 'Lag (entries)', value: (x) => (x.m.role === 'primary' ? '' : String(x.m.lag)), class: 'num' },
        { label: 'Reached', value: (x) => badge(x.m.reached ? 'Reached' : 'Unreached') },
        { label: 'Unhealthy since', value: (x) => fmtTime(x.m.unhealthySince) },
        { label: 'This node is', value: (x) => x.set.self },
      ], rows, { empty: role ? 'No set where this node is ' + role + '.' : 'No replica set names this node yet: a set appears with its queue\u2019s first intent.', caption: 'Each member of each set, as this node sees it' }));
      return r.next;
    });

    const f = filters([{ name: 'role', label: 'This node is', options: ['', 'primary', 'secondary'] }], { role }, (v) => {
      role = v.role;
      history.replaceState(null, '', '#/replicas' + (role ? '?role=' + role : ''));
      p.reload();
    });
    el.append(h('h1', null, 'Replicated queues'),
      section('Replica sets', f.el, chart, sets, p.el),
      section('State machine manager', status));
    await Promise.all([showStatus(), p.load()]);
    return live(ctx, () => Promise.all([showStatus(), p.reload()]), { queues: (q) => shown.has(q), every: 5000 });
  },
};
