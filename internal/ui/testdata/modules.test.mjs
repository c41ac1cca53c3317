// The dashboard's modules outside a browser (node --test): the pure
// formatters of ui.js and api.js's stream() against a real SSE server.
// Run by TestModules (js_test.go).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';

const store = new Map();
globalThis.sessionStorage = {
  getItem: (k) => (store.has(k) ? store.get(k) : null),
  setItem: (k, v) => store.set(k, String(v)),
  removeItem: (k) => store.delete(k),
};

// A browser resolves fetch's relative URLs against the page; node needs them whole.
const nodeFetch = globalThis.fetch;
globalThis.fetch = (url, init) => nodeFetch(new URL(url, globalThis.location.origin), init);

const { fmtWei, fmtInt } = await import('../assets/js/ui.js');
const api = await import('../assets/js/api.js');

test('fmtWei is exact past 2^53 and picks the unit', () => {
  assert.equal(fmtWei('1500000000000000000'), '1.5 ETH');
  assert.equal(fmtWei(1500000000000000000n), '1.5 ETH');
  assert.equal(fmtWei('1180591620717411303424'), '1180.591620… ETH'); // 2^70 wei
  assert.equal(fmtWei('123456789012345678901234567890'), '123456789012.345678… ETH');
  assert.equal(fmtWei('20000000000'), '20 gwei');
  assert.equal(fmtWei('7'), '7 wei');
  assert.equal(fmtWei('-2000000000'), '-2 gwei');
  assert.equal(fmtWei('not a number'), 'not a number');
  assert.equal(fmtWei(''), '');
});

test('fmtInt groups digits exactly', () => {
  assert.equal(fmtInt('99999999994000'), '99\u202f999\u202f999\u202f994\u202f000');
  assert.equal(fmtInt(5), '5');
  assert.equal(fmtInt('-1234'), '-1\u202f234');
  assert.equal(fmtInt('18446744073709551616'), '18\u202f446\u202f744\u202f073\u202f709\u202f551\u202f616');
});

test('stream parses split events, sends the token, resumes after the last id', async () => {
  const seen = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    seen.push({ path: u.pathname, after: u.searchParams.get('after'), queue: u.searchParams.get('queue'), auth: req.headers.authorization });
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    if (seen.length === 1) {
      // Two events, split mid-line and mid-CRLF (inside an event and at its
      // end), a comment, a two-line data.
      const chunks = [': hello\r\nid: 1\r', '\nevent: change\r\ndata: {"uid":"a",', '"to":"DONE"}\r', '\n\r\nid: 2\nevent: change\ndata: line one\ndata: line two\n\n'];
      let i = 0;
      const next = () => {
        if (i < chunks.length) {
          res.write(chunks[i++]);
          setTimeout(next, 20);
        } else res.end(); // the stream breaks: the client reconnects
      };
      next();
    } else {
      res.write('id: 3\nevent: change\ndata: {"uid":"b"}\n\n');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  globalThis.location = { origin: `http://127.0.0.1:${server.address().port}` };
  api.setToken('tok-of-the-test');
  const events = [];
  let close;
  await new Promise((resolve) => {
    close = api.stream('/v1/changes', { queue: 'q-1' }, (ev) => {
      events.push(ev);
      if (events.length === 3) resolve();
    });
  });
  close();
  server.closeAllConnections();
  server.close();
  api.clearToken();
  assert.deepEqual(events, [
    { id: '1', event: 'change', data: { uid: 'a', to: 'DONE' } },
    { id: '2', event: 'change', data: 'line one\nline two' },
    { id: '3', event: 'change', data: { uid: 'b' } },
  ]);
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[0], { path: '/v1/changes', after: null, queue: 'q-1', auth: 'Bearer tok-of-the-test' });
  assert.deepEqual(seen[1], { path: '/v1/changes', after: '2', queue: 'q-1', auth: 'Bearer tok-of-the-test' });
});

test('an API error becomes an ApiError with the API sentence', async () => {
  const server = http.createServer((req, res) => {
    res.writeHead(403, { 'Content-Type': 'application/json' });
    res.end('{"error":{"code":"forbidden","message":"principal olga lacks the role admin"}}');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  globalThis.location = { origin: `http://127.0.0.1:${server.address().port}` };
  await assert.rejects(api.post('/v1/processors/p/pause'), (e) => {
    assert.ok(e instanceof api.ApiError);
    assert.equal(e.status, 403);
    assert.equal(e.code, 'forbidden');
    assert.equal(e.message, 'principal olga lacks the role admin');
    return true;
  });
  server.close();
});
