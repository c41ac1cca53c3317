// app.js: the dashboard's shell. A hash router (#/<view id>/<args>?<query>),
// sign-in, the navigation (views of engines this node runs), role gating
// (ctx.can) and one shared change stream (ctx.onChange) for live views.
//
// A view is a module in js/views/ listed in js/views/index.js:
//   export default {
//     id: 'queues',            // its route: #/queues, #/queues/<args…>
//     title: 'Queues',         // its name in the navigation and the title
//     engine: 'sequencer',     // optional: shown only when that engine runs
//     nav: true,               // optional: false keeps it out of the navigation
//     public: false,           // optional: true renders it without a session
//     render(el, params, ctx) { …; return () => { /* cleanup */ }; },
//   }
// params = {args: [path segments after the id], query: {name: value}};
// ctx = {session, can(role), navigate(hash), onChange(fn) → unsubscribe}.
// onChange(fn) calls fn(change, event) for each record change of the node
// ({id, uid, queue, from, to, at, note}); render may be async.

import { session, stream, token, clearToken } from './api.js';
import { h, errorBox } from './ui.js';
import { views } from './views/index.js';

const main = document.getElementById('main');
const navList = document.getElementById('nav-list');
const who = document.getElementById('who');
const live = document.getElementById('live');
const signOut = document.getElementById('sign-out');

let cleanup = null;
let seq = 0;
let changes = null; // close() of the change stream
const listeners = new Set();

/** parse('#/queues/q1?state=DONE') → {id: 'queues', args: ['q1'], query: {state: 'DONE'}}. */
export function parse(hash) {
  const raw = (hash || '').replace(/^#\/?/, '');
  const [path, qs] = raw.split('?', 2);
  const segs = path.split('/').filter(Boolean).map(decodeURIComponent);
  const query = Object.fromEntries(new URLSearchParams(qs || ''));
  return { id: segs[0] || 'overview', args: segs.slice(1), query };
}

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function can(sess, role) {
  if (!sess) return false;
  if (sess.devMode) return true;
  const roles = sess.roles || [];
  return roles.includes('admin') || roles.includes(role);
}

function visible(v, sess) {
  return !v.engine || (sess && (sess.engines || []).includes(v.engine));
}

function renderNav(sess, current) {
  navList.replaceChildren();
  if (!sess) return;
  for (const v of views) {
    if (v.nav === false || v.public || !visible(v, sess)) continue;
    navList.append(h('li', null, h('a', { href: '#/' + v.id, 'aria-current': v.id === current ? 'page' : false }, v.title)));
  }
}

function renderWho(sess) {
  who.replaceChildren();
  signOut.hidden = !token();
  if (!sess) return;
  const roles = sess.devMode ? 'dev mode: every role' : (sess.roles || []).join(', ') || 'no roles';
  who.append(h('span', { class: 'principal' }, sess.principal || 'anonymous'), ' ', h('span', { class: 'muted' }, '(' + roles + ')'));
}

function setLive(text, cls) {
  live.textContent = text;
  live.className = 'live ' + (cls || '');
}

function startChanges() {
  if (changes) return;
  setLive('connecting…', 'wait');
  // From the feed's tail (after=now): the views read the state itself, the
  // stream only tells them what changed since, not the node's history.
  changes = stream('/v1/changes', { after: 'now' }, (ev) => {
    if (ev.event !== 'change') return;
    for (const fn of listeners) {
      try {
        fn(ev.data, ev);
      } catch (e) {
        console.warn('a live view failed on a change', e);
      }
    }
  }, {
    onOpen: () => setLive('live', 'ok'),
    onError: (e) => setLive(e.status === 403 || e.status === 401 || e.status === 404 ? 'no live updates: ' + e.message : 'reconnecting…', 'bad'),
  });
}

function stopChanges() {
  if (changes) changes();
  changes = null;
  setLive('', '');
}

function onChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

async function route() {
  const my = ++seq;
  const { id, args, query } = parse(location.hash);
  if (cleanup) {
    try {
      cleanup();
    } catch (e) {
      console.warn('a view failed to clean up', e);
    }
    cleanup = null;
  }
  listeners.clear();
  let sess = null;
  let sessErr = null;
  try {
    sess = await session();
  } catch (e) {
    sessErr = e;
  }
  if (my !== seq) return;
  let view = views.find((v) => v.id === id);
  if (!sess && !(view && view.public)) {
    if (sessErr && sessErr.status !== 401 && sessErr.status !== 403) {
      main.replaceChildren(h('h1', { tabindex: '-1' }, 'The node'), errorBox(sessErr));
      renderNav(null, id);
      renderWho(null);
      return;
    }
    stopChanges();
    location.replace('#/signin');
    return;
  }
  renderNav(sess, id);
  renderWho(sess);
  if (sess) startChanges();
  else stopChanges();
  const el = h('div', { class: 'view', 'data-view': id });
  if (!view || !visible(view, sess)) {
    el.append(h('h1', { tabindex: '-1' }, 'Not found'), h('p', null, 'No view ' + id + ' on this node. ', h('a', { href: '#/overview' }, 'Go to the overview.')));
    view = null;
  }
  main.replaceChildren(el);
  document.title = (view ? view.title : 'Not found') + ' · ordo';
  if (!view) return;
  const ctx = { session: sess, can: (role) => can(sess, role), navigate, onChange };
  try {
    const c = await view.render(el, { args, query }, ctx);
    if (my === seq) cleanup = typeof c === 'function' ? c : null;
    else if (typeof c === 'function') c();
  } catch (e) {
    if (my === seq) el.append(errorBox(e));
  }
  if (my === seq && document.activeElement === document.body) {
    const h1 = el.querySelector('h1');
    if (h1 && routedOnce) {
      h1.setAttribute('tabindex', '-1');
      h1.focus();
    }
  }
  routedOnce = true;
}

let routedOnce = false;

signOut.addEventListener('click', () => {
  clearToken();
  stopChanges();
  navigate('#/signin');
});

// Leaving the page ends the change stream: a browser may keep an unfinished
// streamed response's connection open across a reload, and six of them
// would take every connection the browser allows to the node.
window.addEventListener('pagehide', stopChanges);
window.addEventListener('hashchange', route);
route();
