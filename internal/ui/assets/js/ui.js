// ui.js: the DOM helpers every view uses. Data reaches the page only as
// text (text nodes, attribute values), never parsed as HTML.

const SVG = 'http://www.w3.org/2000/svg';

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.append(c);
    else el.append(document.createTextNode(String(c)));
  }
}

/**
 * h('a', {href: '#/queues', class: 'x', onclick: fn}, 'text', node, [more])
 * builds an element: attributes are set with setAttribute (a value of
 * false, null or undefined is left out, true sets it empty), a function
 * whose key starts with "on" is an event listener, children are nodes or
 * text (arrays flattened; null, undefined and false skipped).
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (typeof v === 'function' && k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/**
 * fill(el, ...children) replaces el's children as h() takes them (null,
 * undefined and false skipped, arrays flattened, text as text): unlike
 * el.replaceChildren or el.append, which write null as "null".
 */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * table(columns, rows, {empty, caption}) is a table: columns are
 * {label, key} (the row's field, as text) or {label, value: row => text or
 * node}, with an optional class (say 'num'); rows an array. With no rows
 * it shows opts.empty (default "Nothing yet.").
 */
export function table(columns, rows, opts = {}) {
  const head = h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.class }, c.label))));
  const body = h('tbody');
  if (!rows || rows.length === 0) {
    body.append(h('tr', null, h('td', { colspan: columns.length, class: 'empty' }, opts.empty || 'Nothing yet.')));
  } else {
    for (const row of rows) {
      body.append(h('tr', null, columns.map((c) => {
        const v = c.value ? c.value(row) : row[c.key];
        return h('td', { class: c.class, 'data-label': c.label }, v === undefined || v === null ? '' : v);
      })));
    }
  }
  return h('div', { class: 'table-wrap' }, h('table', null, opts.caption ? h('caption', null, opts.caption) : null, head, body));
}

/**
 * pager(fetchPage) pages with the API's cursors: fetchPage(cursor) shows
 * one page (cursor '' is the first) and resolves to the next page's cursor
 * ('' or undefined on the last). It returns {el, load(), reload(),
 * first()}: el holds the Previous and Next buttons; load() shows the
 * first page; reload() shows the current page again (for live refresh);
 * first() goes back to the first page.
 */
export function pager(fetchPage) {
  const stack = ['']; // cursors of the pages before and of the current one
  let next = '';
  let busy = false;
  const prev = h('button', { type: 'button', class: 'btn', onclick: () => go(stack.length - 2, true) }, '← Previous');
  const nextB = h('button', { type: 'button', class: 'btn', onclick: () => go(stack.length, false) }, 'Next →');
  const where = h('span', { class: 'muted', 'aria-live': 'polite' });
  const el = h('nav', { class: 'pager', 'aria-label': 'Pages' }, prev, where, nextB);

  async function show(cursor) {
    busy = true;
    try {
      next = (await fetchPage(cursor)) || '';
    } finally {
      busy = false;
    }
    prev.disabled = stack.length <= 1;
    nextB.disabled = !next;
    where.textContent = 'Page ' + stack.length;
  }
  async function go(i, back) {
    if (busy || i < 0) return;
    if (back) stack.pop();
    else {
      if (!next) return;
      stack.push(next);
    }
    await show(stack[stack.length - 1]);
  }
  prev.disabled = true;
  nextB.disabled = true;
  return {
    el,
    load: () => show(stack[stack.length - 1]),
    reload: () => (busy ? Promise.resolve() : show(stack[stack.length - 1])),
    first: () => {
      stack.length = 1;
      return show('');
    },
  };
}

/**
 * filters(fields, values, onChange) is a row of labelled controls: fields
 * are {name, label, options: ['', 'A', …]} (a select; '' reads "any") or
 * {name, label} (a text input, applied on Enter or change). values are
 * the starting values by name; onChange(values) hears every change.
 * Returns {el, values()}.
 */
export function filters(fields, values, onChange) {
  const current = { ...(values || {}) };
  const el = h('div', { class: 'filters', role: 'group', 'aria-label': 'Filters' });
  for (const f of fields) {
    const id = 'f-' + f.name + '-' + Math.random().toString(36).slice(2, 8);
    let ctl;
    if (f.options) {
      ctl = h('select', { id, name: f.name }, f.options.map((o) => h('option', { value: o, selected: (current[f.name] || '') === o }, o || 'any')));
    } else {
      ctl = h('input', { id, name: f.name, type: 'search', value: current[f.name] || '', placeholder: f.placeholder || '', autocomplete: 'off' });
      ctl.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') ctl.dispatchEvent(new Event('change'));
      });
    }
    ctl.addEventListener('change', () => {
      current[f.name] = ctl.value;
      onChange({ ...current });
    });
    el.append(h('label', { for: id }, f.label), ctl);
  }
  return { el, values: () => ({ ...current }) };
}

/** badge(state) is a state's badge (class badge-<state in lower case>). */
export function badge(state) {
  const s = String(state || 'unknown');
  return h('span', { class: 'badge badge-' + s.toLowerCase().replace(/[^a-z0-9]+/g, '-') }, s);
}

function pad(n) {
  return String(n).padStart(2, '0');
}

/** fmtTime(iso) is a time as YYYY-MM-DD HH:MM:SS in the browser's zone; '' for none. */
export function fmtTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getFullYear() <= 1) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * fmtWei(v) is an amount of wei (a decimal string, bigint or safe number)
 * in the largest fitting unit, exactly: "1.5 ETH", "20 gwei", "7 wei". A
 * value that does not parse is shown as it is.
 */
export function fmtWei(v) {
  if (v === undefined || v === null || v === '') return '';
  let n;
  try {
    n = BigInt(v);
  } catch {
    return String(v);
  }
  const neg = n < 0n;
  if (neg) n = -n;
  const units = [[10n ** 18n, 'ETH'], [10n ** 9n, 'gwei']];
  let out = n + ' wei';
  for (const [size, name] of units) {
    if (n >= size) {
      const whole = n / size;
      let frac = (n % size).toString().padStart(size.toString().length - 1, '0').replace(/0+$/, '');
      if (frac.length > 6) frac = frac.slice(0, 6) + '…';
      out = whole + (frac ? '.' + frac : '') + ' ' + name;
      break;
    }
  }
  return (neg ? '-' : '') + out;
}

/** fmtInt(v) is a whole number (decimal string, bigint or number) with thin-space digit groups, exactly. */
export function fmtInt(v) {
  if (v === undefined || v === null || v === '') return '';
  let n;
  try {
    n = BigInt(v);
  } catch {
    return String(v);
  }
  const neg = n < 0n;
  const digits = (neg ? -n : n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return (neg ? '-' : '') + digits;
}

/**
 * fmtAmount(v, session) is an amount of the node's chain: in wei units
 * (fmtWei) on an EVM chain (its name says evm, geth or eth), else the
 * chain's own whole units (fmtInt; devchain's balances and fees).
 */
export function fmtAmount(v, session) {
  const name = (session && session.chain && session.chain.name) || '';
  return /evm|geth|eth/i.test(name) ? fmtWei(v) : fmtInt(v);
}

/**
 * sparkline(values, {label, width, height, unit}) is a small line chart
 * in inline SVG (role img) with a text alternative: its aria-label and a
 * caption give the label, the last value, the least and the most.
 */
export function sparkline(values, opts = {}) {
  const w = opts.width || 160;
  const hgt = opts.height || 36;
  const vs = (values || []).map(Number).filter((x) => Number.isFinite(x));
  const unit = opts.unit ? ' ' + opts.unit : '';
  const last = vs.length ? vs[vs.length - 1] : null;
  const lo = vs.length ? Math.min(...vs) : 0;
  const hi = vs.length ? Math.max(...vs) : 0;
  const text = vs.length
    ? `${opts.label || 'trend'}: now ${round(last)}${unit}, least ${round(lo)}, most ${round(hi)} over ${vs.length} samples`
    : `${opts.label || 'trend'}: no samples yet`;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  svg.setAttribute('width', String(w));
  svg.setAttribute('height', String(hgt));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', text);
  svg.setAttribute('class', 'spark');
  if (vs.length > 1) {
    const span = hi - lo || 1;
    const pts = vs.map((x, i) => `${((i / (vs.length - 1)) * (w - 2) + 1).toFixed(1)},${(hgt - 2 - ((x - lo) / span) * (hgt - 4)).toFixed(1)}`);
    const line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', pts.join(' '));
    line.setAttribute('class', 'spark-line');
    svg.append(line);
  }
  return h('figure', { class: 'spark-fig' }, svg, h('figcaption', null, text));
}

function round(x) {
  return Math.abs(x) >= 100 ? Math.round(x) : Math.round(x * 100) / 100;
}

/**
 * errorBox(err) shows an error (role alert): an ApiError's sentence as the
 * API wrote it, with its code; any other error's message.
 */
export function errorBox(err) {
  const msg = (err && err.message) || String(err);
  const code = err && err.code ? err.code : '';
  return h('div', { class: 'error', role: 'alert' }, h('strong', null, err && err.status === 403 ? 'Not allowed: ' : 'Error: '), msg,
    code ? h('span', { class: 'muted' }, ' (' + code + ')') : null);
}

/** link(hash, text) is a link to a route of the dashboard. */
export function link(hash, text) {
  return h('a', { href: hash }, text);
}

/** section(title, ...children) is a titled section of a view. */
export function section(title, ...children) {
  return h('section', { class: 'card' }, h('h2', null, title), ...children);
}
