// committee.js: the distributed sequencer (seed 003). This node's peers and
// their connection (GET /v1/peers), the coordinator per privacy group as
// this node sees it now, its intents in flight by seed 003 state (GET
// /v1/distseq/intents: the sender's and the coordinator's machines), and
// its latest intents by status (ptx_queryTransactions). Live: every 3 s
// (connections, heartbeats and the core's states have no stream), and the
// change stream of its dispatch queues (distseq/<group>).

import { get } from '../api.js';
import { h, table, filters, badge, fmtTime, errorBox, section } from '../ui.js';
import { live, stat, muted, short, ago, rpc } from '../ui-engines.js';

const RECENT = 20;

function countsTable(states, rows, key, empty, caption) {
  const cols = [{ label: 'Privacy group', value: (r) => short(r.contract, 20) }];
  for (const s of states) cols.push({ label: s, value: (r) => String((r[key] || {})[s] || 0), class: 'num' });
  cols.push({ label: 'Total', value: (r) => String(Object.values(r[key] || {}).reduce((a, b) => a + b, 0)), class: 'num' });
  return table(cols, rows.filter((r) => Object.values(r[key] || {}).some((n) => n > 0)), { empty, caption });
}

export default {
  id: 'committee',
  title: 'Committee',
  engine: 'distseq',
  async render(el, params, ctx) {
    const head = h('div', { 'aria-live': 'polite' });
    const peers = h('div', { 'aria-live': 'polite', 'data-peers': '' });
    const groups = h('div', { 'aria-live': 'polite', 'data-groups': '' });
    const states = h('div', { 'aria-live': 'polite', 'data-states': '' });
    const recent = h('div', { 'aria-live': 'polite', 'data-recent': '' });
    let status = ['pending', 'confirmed', 'reverted'].includes(params.query.status) ? params.query.status : '';

    async function showPeers() {
      let r;
      try {
        r = await get('/v1/peers');
      } catch (e) {
        peers.replaceChildren(errorBox(e));
        groups.replaceChildren();
        return;
      }
      const ps = r.peers || [];
      const up = ps.filter((p) => p.state === 'connected').length;
      const cs = r.contracts || [];
      head.replaceChildren(h('div', { class: 'grid' },
        stat('peers', 'Peers', ps.length),
        stat('connected', 'Connected', up),
        stat('groups', 'Privacy groups', cs.length),
        stat('coordinating', 'Coordinated here', cs.filter((c) => c.coordinating).length)),
      h('p', null, 'This node: ', h('code', { 'data-self': '' }, r.self || 'no identity')));
      peers.replaceChildren(table([
        { label: 'Peer', value: (p) => h('code', null, p.id) },
        { label: 'Connection', value: (p) => badge(p.state) },
        { label: 'Queued', key: 'queued', class: 'num' },
        { label: 'In', key: 'in', class: 'num' },
        { label: 'Out', key: 'out', class: 'num' },
        { label: 'Dropped', key: 'drops', class: 'num' },
        { label: 'Lost', key: 'lost', class: 'num' },
        { label: 'Reconnects', key: 'reconnects', class: 'num' },
        { label: 'Last heard', value: (p) => ago(p.lastHeartbeat || p.lastIn) || muted('never') },
      ], ps, { empty: 'No peer: a committee of one, or none configured.' }));
      groups.replaceChildren(table([
        { label: 'Privacy group', value: (c) => short(c.contract, 20) },
        { label: 'Coordinator now', value: (c) => (c.coordinator ? h('code', null, c.coordinator + (c.coordinator === r.self ? ' (this node)' : '')) : muted('none available')) },
        { label: 'Coordinating here', value: (c) => badge(c.coordinating ? 'Yes' : 'No') },
        { label: 'Block range', key: 'range', class: 'num' },
        { label: 'Height', key: 'height', class: 'num' },
      ], cs, { empty: 'No privacy group known to this node.', caption: 'The coordinator this node would delegate to now' }));
    }

    async function showStates() {
      let r;
      try {
        r = await get('/v1/distseq/intents');
      } catch (e) {
        states.replaceChildren(errorBox(e));
        return;
      }
      const cs = r.contracts || [];
      states.replaceChildren(
        countsTable(r.senderStates || [], cs, 'sender', 'No intent of this node in flight.', 'Sent from this node, by the sender\u2019s state'),
        countsTable(r.coordinatorStates || [], cs, 'coordinator', 'No delegation coordinated here now.', 'Coordinated by this node, by the coordinator\u2019s state'));
    }

    async function showRecent() {
      let txs;
      try {
        const q = { limit: RECENT };
        if (status) q.status = status;
        txs = await rpc('ptx_queryTransactions', [q]);
      } catch (e) {
        recent.replaceChildren(errorBox(e));
        return;
      }
      recent.replaceChildren(table([
        { label: 'Id', value: (t) => short(t.id, 18) },
        { label: 'Group', value: (t) => short(t.to, 16) },
        { label: 'Status', value: (t) => badge(t.status) },
        { label: 'Data', value: (t) => h('code', null, JSON.stringify(t.data)) },
        { label: 'Reason', key: 'reason' },
        { label: 'Created', value: (t) => fmtTime(t.created) },
      ], txs || [], { empty: status ? 'No ' + status + ' intent.' : 'No intent sent from this node yet.' }));
    }

    const f = filters([{ name: 'status', label: 'Status', options: ['', 'pending', 'confirmed', 'reverted'] }], { status }, (v) => {
      status = v.status;
      history.replaceState(null, '', '#/committee' + (status ? '?status=' + status : ''));
      showRecent();
    });
    el.append(h('h1', null, 'Committee'), head,
      section('Peers', peers),
      section('Coordinators', groups),
      section('Intents in flight by state (seed 003)', h('p', { class: 'muted' }, 'A final intent (Confirmed, Reverted) leaves memory once committed: the latest intents below list them.'), states),
      section('Latest intents of this node', f.el, recent));
    const load = () => Promise.all([showPeers(), showStates(), showRecent()]);
    await load();
    return live(ctx, load, { queues: (q) => q.startsWith('distseq/'), every: 3000 });
  },
};
