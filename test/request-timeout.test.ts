/**
 * Request deadlines as kube-apiserver keeps them: `?timeout=` (a Go duration) shortens a
 * non-watch request's deadline, a bad value is a 400 with kube's message (also on non-resource
 * paths), a missed deadline is kube's 504 — also while the body is still arriving (a body sent a
 * few bytes at a time ends there, not minutes later) — and a write that timed out lands whole or
 * not at all. Watches ignore `?timeout=`. The first tests run against the reference with
 * TEST_KUBECONFIG; the last ones need this server's flags (--request-timeout,
 * --min-request-timeout) and run only here.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from './target.ts';
import { startTestServer, type TestServer } from './harness.ts';
import { rawRequest, rawRequestH2, type RawResult } from './raw-request.ts';
import { join } from 'node:path';

let t: Target;
let base: string;

const show = (r: RawResult): string => `HTTP ${r.status} after ${r.ms} ms: ${r.text.slice(0, 300)}`;
const TIMEOUT_STATUS = { metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: {}, code: 504 };

function expect504(r: RawResult, label: string): void {
  assert.is(r.status, 504, `${label}: ${show(r)}`);
  // kube's timeout filter encodes the bare Status (no kind/apiVersion); Go sniffs it as text.
  assert.is(r.headers['content-type'], 'text/plain; charset=utf-8', label);
  assert.equal(JSON.parse(r.text), TIMEOUT_STATUS, `${label}: ${show(r)}`);
}

test.before(async () => {
  t = await startTarget();
  const ns = await t.createNamespace('timeout');
  base = `/api/v1/namespaces/${ns}/configmaps`;
  for (let i = 0; i < 20; i++) {
    const r = await t.client.request('POST', base, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { k: 'v'.repeat(1000) } } });
    assert.is(r.status, 201, r.text);
  }
});

test.after(async () => {
  await t?.close();
});

test("a bad ?timeout= is a 400 with kube's message, on every non-watch path", async () => {
  const cases: [string, string][] = [
    ['bogus', 'time: invalid duration "bogus"'],
    ['10', 'time: missing unit in duration "10"'],
    ['1x', 'time: unknown unit "x" in duration "1x"'],
    ['1.5.s', 'time: missing unit in duration "1.5.s"'],
    ['99999999999h', 'time: invalid duration "99999999999h"'],
  ];
  for (const [value, why] of cases) {
    for (const path of [base, `${base}/c1`, '/api', '/healthz']) {
      const r = await rawRequest(t.kubeconfig, 'GET', `${path}?timeout=${value}`);
      assert.is(r.status, 400, `${path}?timeout=${value}: ${show(r)}`);
      assert.is(r.json?.kind, 'Status', show(r));
      assert.is(r.json.reason, 'BadRequest', show(r));
      assert.is(r.json.message, `invalid timeout specified in the request URL - ${why}`, show(r));
    }
  }
  // A write with a bad timeout writes nothing.
  const w = await rawRequest(t.kubeconfig, 'POST', `${base}?timeout=bogus`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-timeout' } }) });
  assert.is(w.status, 400, show(w));
  assert.is((await t.client.request('GET', `${base}/bad-timeout`)).status, 404);
  // Empty, zero, negative and longer-than-the-maximum values leave the deadline as it is.
  for (const value of ['', '0s', '-1s', '0', '1h', '1h&timeout=bogus']) {
    const r = await rawRequest(t.kubeconfig, 'GET', `${base}?timeout=${value}`);
    assert.is(r.status, 200, `timeout=${value}: ${show(r)}`);
  }
});

test('a missed deadline is 504 (a list with ?timeout=1ns)', async () => {
  expect504(await rawRequest(t.kubeconfig, 'GET', `${base}?timeout=1ns`), 'list');
});

test('the deadline covers reading the body: a slow body gets the 504 when it passes, and nothing is created', async () => {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' }, data: { k: 'x'.repeat(40) } });
  // ~100 bytes at 8 bytes every 400 ms: ~5 s to send; the deadline is 1 s.
  const r = await rawRequest(t.kubeconfig, 'POST', `${base}?timeout=1s`, { body, drip: { bytes: 8, everyMs: 400 }, timeoutMs: 20_000 });
  expect504(r, 'slow body');
  assert.ok(r.ms >= 900 && r.ms < 3_000, `answered after ${r.ms} ms`);
  const h2 = await rawRequestH2(t.kubeconfig, 'POST', `${base}?timeout=1s`, { body: body.replace('"slow"', '"slow-h2"'), drip: { bytes: 8, everyMs: 400 }, timeoutMs: 20_000 });
  assert.is(h2.status, 504, `HTTP/2: ${show(h2)}`);
  assert.equal(JSON.parse(h2.text), TIMEOUT_STATUS);
  assert.ok(h2.ms >= 900 && h2.ms < 3_000, `HTTP/2 answered after ${h2.ms} ms`);
  await new Promise((res) => setTimeout(res, 2_500));
  assert.is((await t.client.request('GET', `${base}/slow`)).status, 404, 'the body never completed: nothing created');
  assert.is((await t.client.request('GET', `${base}/slow-h2`)).status, 404, 'the body never completed: nothing created (HTTP/2)');
});

test('a write that times out lands whole or not at all', async () => {
  const data: Record<string, string> = {};
  for (let i = 0; i < 50; i++) data[`k${i}`] = `v${i}`.repeat(100);
  for (let i = 0; i < 5; i++) {
    const name = `tw${i}`;
    const r = await rawRequest(t.kubeconfig, 'POST', `${base}?timeout=1ns`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: 'b' } }, data }) });
    assert.ok(r.status === 504 || r.status === 201, show(r));
    if (r.status === 504) expect504(r, `create ${name}`);
    await new Promise((res) => setTimeout(res, 500));
    // The client finds out which with a GET: the whole object, or none.
    const g = await t.client.request('GET', `${base}/${name}`);
    assert.ok(g.status === 200 || g.status === 404, g.text);
    if (g.status === 200) {
      assert.equal(g.json.data, data, 'all the data');
      assert.equal(g.json.metadata.labels, { a: 'b' }, 'all the metadata');
    }
  }
});

test('watches ignore ?timeout= (bogus or short)', async () => {
  for (const value of ['bogus', '1ns']) {
    const r = await rawRequest(t.kubeconfig, 'GET', `${base}?watch=1&timeoutSeconds=1&timeout=${value}`, { timeoutMs: 10_000 });
    assert.is(r.status, 200, `timeout=${value}: ${show(r)}`);
    assert.ok(r.text.includes('"type":"ADDED"'), show(r));
  }
});

test('--request-timeout and --min-request-timeout (this server only)', async () => {
  if (t.reference) return;
  let srv: TestServer | undefined;
  try {
    srv = await startTestServer({ requestTimeoutMs: 1_000, minRequestTimeoutS: 1 });
    const kc = join(srv.dataDir, 'kubeconfig');
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' } });
    const slow = await rawRequest(kc, 'POST', '/api/v1/namespaces/default/configmaps', { body, drip: { bytes: 4, everyMs: 300 }, timeoutMs: 20_000 });
    expect504(slow, 'slow body, --request-timeout 1s');
    assert.ok(slow.ms >= 900 && slow.ms < 3_000, `answered after ${slow.ms} ms`);
    // A longer ?timeout= cannot extend the server's maximum.
    const longer = await rawRequest(kc, 'POST', '/api/v1/namespaces/default/configmaps?timeout=1h', { body, drip: { bytes: 4, everyMs: 300 }, timeoutMs: 20_000 });
    expect504(longer, 'slow body, ?timeout=1h');
    // A watch without timeoutSeconds ends after [min, 2·min) = [1 s, 2 s).
    const w = await rawRequest(kc, 'GET', '/api/v1/namespaces/default/configmaps?watch=1', { timeoutMs: 10_000 });
    assert.is(w.status, 200, show(w));
    assert.ok(w.ms >= 950 && w.ms < 2_600, `watch ended after ${w.ms} ms`);
    // The server still answers.
    assert.is((await srv.client.request('GET', '/readyz')).status, 200);
  } finally {
    await srv?.close();
  }
});

test.run();
