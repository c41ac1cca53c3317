// signin.js: the sign-in view. The token goes into sessionStorage only
// (never a URL or a cookie); in dev mode the node needs none. The input
// has no name, so that even a form submitted without this script (which
// the CSP's form-action 'none' blocks anyway) would carry no token.

import { session, setToken, clearToken, token } from '../api.js';
import { h, errorBox } from '../ui.js';

export default {
  id: 'signin',
  title: 'Sign in',
  nav: false,
  public: true,
  async render(el, params, ctx) {
    const input = h('input', { id: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
    const msg = h('div', { 'aria-live': 'assertive' });
    const form = h('form', { class: 'card', 'aria-labelledby': 'signin-h' },
      h('label', { for: 'token' }, 'Your token'),
      input,
      h('p', { class: 'muted' }, 'The token stays in this tab’s session storage; closing the tab or signing out forgets it.'),
      h('div', { class: 'row' }, h('button', { class: 'btn primary', type: 'submit' }, 'Sign in')),
      msg);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      msg.replaceChildren();
      const t = input.value.trim();
      if (!t) return;
      setToken(t);
      try {
        await session();
        input.value = '';
        ctx.navigate('#/overview');
      } catch (err) {
        clearToken();
        msg.append(errorBox(err));
      }
    });
    el.append(h('div', { class: 'signin' }, h('h1', { id: 'signin-h' }, 'Sign in to this ordo node'), form));
    if (ctx.session && ctx.session.devMode && !token()) {
      el.querySelector('.signin').append(h('p', { class: 'card' }, 'This node runs in dev mode: it needs no token. ',
        h('a', { href: '#/overview' }, 'Open the overview.')));
    } else if (ctx.session) {
      el.querySelector('.signin').append(h('p', { class: 'muted' }, 'Signed in as ' + ctx.session.principal + '. ',
        h('a', { href: '#/overview' }, 'Open the overview.')));
    }
    input.focus();
  },
};
