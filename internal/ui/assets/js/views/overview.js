// overview.js: the node at a glance: intents by state, intake and DONE
// rates, slot use, retries, senders busy and free, the chain's head and
// health (/healthz), the engines running, and small charts of the last
// minutes (/v1/stats/history). It refreshes on the change stream and every
// 5 seconds (the history's sample period).

import { get } from '../api.js';
import { h, fill, table, badge, sparkline, errorBox, section } from '../ui.js';
import { STATES, debounce } from './queues.js';

function stat(label, value, id) {
  return h('div', { class: 'stat', 'data-stat': id }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, String(value ?? '—')));
}

/** rate(samples, pick) is the per-second rate of a running total between the last two samples. */
export function rate(samples, pick) {
  if (samples.length < 2) return null;
  const a = samples[samples.length - 2];
  const b = samples[samples.length - 1];
  const dt = (new Date(b.at) - new Date(a.at)) / 1000;
  if (!(dt > 0)) return null;
  return Math.max(0, (pick(b) - pick(a)) / dt);
}

function rates(samples, pick) {
  const out = [];
  for (let i = 1; i < samples.length; i++) {
    const dt = (new Date(samples[i].at) - new Date(samples[i - 1].at)) / 1000;
    out.push(dt > 0 ? Math.max(0, (pick(samples[i]) - pick(samples[i - 1])) / dt) : 0);
  }
  return out;
}

function fmtRate(r) {
  return r === null ? '—' : (Math.round(r * 10) / 10) + '/s';
}

export default {
  id: 'overview',
  title: 'Overview',
  async render(el, params, ctx) {
    const figures = h('div', { class: 'grid', 'aria-live': 'polite', id: 'figures' });
    const charts = h('div', { class: 'grid' });
    const health = h('div');
    const engines = h('div');
    const chartsNote = h('p', { class: 'muted' });
    const engineFigures = h('div');
    el.append(h('h1', null, 'Overview'), figures, section('Last minutes', charts, chartsNote), section('Chain and health', health), section('Engines on this node', engines, engineFigures));
    engines.append(h('ul', { class: 'row engines' }, (ctx.session.engines || []).map((e) => h('li', null, badge(e)))),
      h('p', { class: 'muted' }, 'Version ' + (ctx.session.version || 'unknown') + (ctx.session.chain && ctx.session.chain.name ? ', chain ' + ctx.session.chain.name : '') + '.'));

    async function load() {
      const [hist, hz] = await Promise.all([
        get('/v1/stats/history').catch((e) => e),
        get('/healthz').catch((e) => e),
      ]);
      if (hist instanceof Error) {
        figures.replaceChildren(errorBox(hist));
        charts.replaceChildren();
      } else {
        const ss = hist.samples || [];
        const s = ss[ss.length - 1] || {};
        const intents = s.intents || {};
        const has = ss.length > 0;
        figures.replaceChildren(
          ...STATES.map((st) => stat(st, intents[st] ?? 0, 'intents-' + st)),
          stat('Intake rate', fmtRate(rate(ss, (x) => x.intakeTotal || 0)), 'intake-rate'),
          stat('DONE rate', fmtRate(rate(ss, (x) => x.doneTotal || 0)), 'done-rate'),
          stat('Slots in use', has ? s.slotsInUse : '—', 'slots'),
          stat('Retries', has ? s.retriesTotal : '—', 'retries'),
          stat('Senders busy / free', has ? s.sendersBusy + ' / ' + s.sendersFree : '—', 'senders'));
        const every = hist.intervalSeconds ? ' every ' + hist.intervalSeconds + ' s' : '';
        charts.replaceChildren(
          sparkline(rates(ss, (x) => x.intakeTotal || 0), { label: 'Intake rate', unit: '/s' }),
          sparkline(rates(ss, (x) => x.doneTotal || 0), { label: 'DONE rate', unit: '/s' }),
          sparkline(ss.map((x) => (x.intents ? (x.intents.WAITING || 0) + (x.intents.RETRY || 0) + (x.intents.REVISION || 0) : 0)), { label: 'Intents open' }),
          sparkline(ss.map((x) => x.slotsInUse || 0), { label: 'Slots in use' }),
          sparkline(ss.map((x) => x.headAgeSeconds || 0), { label: 'Chain head age', unit: 's' }));
        chartsNote.textContent = ss.length + ' samples' + every + ' (GET /v1/stats/history).';
        const rows = [];
        for (const [engine, figs] of Object.entries(s.engines || {})) {
          for (const [name, v] of Object.entries(figs || {})) rows.push({ engine, name, v });
        }
        engineFigures.replaceChildren(rows.length ? table([
          { label: 'Engine', key: 'engine' },
          { label: 'Figure', key: 'name' },
          { label: 'Total', value: (r) => String(r.v), class: 'num' },
        ], rows, { caption: 'The engines’ figures in the last sample' }) : '');
      }
      if (hz instanceof Error && !(hz.status === 503)) {
        health.replaceChildren(errorBox(hz));
      } else {
        const hb = hz instanceof Error ? hz.body || null : hz;
        fill(health, hb ? h('dl', { class: 'record' },
          h('dt', null, 'Status'), h('dd', { 'data-stat': 'health' }, badge(hb.status)),
          h('dt', null, 'Chain head'), h('dd', { 'data-stat': 'head' }, hb.chain ? String(hb.chain.head) : '—'),
          h('dt', null, 'Head age'), h('dd', null, hb.chain && hb.chain.headAge ? hb.chain.headAge : '—'),
          h('dt', null, 'Chain reachable'), h('dd', null, hb.chain ? (hb.chain.reachable ? 'yes' : 'no') : '—')) : errorBox(hz),
        hb && hb.conditions && hb.conditions.length ? table([
          { label: 'Condition', key: 'code' }, { label: 'What', key: 'message' },
        ], hb.conditions) : null);
      }
    }
    await load();
    const refresh = debounce(load, 1000);
    const off = ctx.onChange(() => refresh());
    const timer = setInterval(load, 5000);
    return () => {
      off();
      refresh.cancel();
      clearInterval(timer);
    };
  },
};
