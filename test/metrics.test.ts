/**
 * `/metrics` through HTTPS, as Prometheus (or `kubectl get --raw /metrics`) scrapes it: kube's request
 * metrics with kube's labels (checked against what kube-apiserver 1.24 reports for the same
 * requests), long-running watches, the deprecated-API gauge, stored object counts, the metric
 * lifecycle (hidden metrics and `--show-hidden-metrics-for-version`), this server's own log and
 * watch metrics, and process metrics.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { startTestServer, tempDir, type TestServer } from './harness.ts';
import { clientFor } from './harness.ts';
import { join } from 'node:path';
import { nodeArgsFor } from './server-command.ts';

let s: TestServer;

test.before(async () => {
  s = await startTestServer();
});
test.after(async () => {
  await s.close();
});

/** Prometheus text → series (`name{labels}` exactly as written) → value. */
function parse(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return m;
}

/** A series key as kube-apiserver writes it (labels sorted by name). */
const req = (l: { verb: string; dry_run?: string; group?: string; version?: string; resource?: string; subresource?: string; scope?: string; component?: string; code: number }): string =>
  `apiserver_request_total{code="${l.code}",component="${l.component ?? 'apiserver'}",dry_run="${l.dry_run ?? ''}",group="${l.group ?? ''}",resource="${l.resource ?? ''}",scope="${l.scope ?? ''}",subresource="${l.subresource ?? ''}",verb="${l.verb}",version="${l.version ?? 'v1'}"}`;

async function scrape(t: TestServer = s): Promise<{ text: string; series: Map<string, number> }> {
  const r = await t.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } });
  assert.is(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return { text: r.text, series: parse(r.text) };
}

test('request counter and duration carry kube labels: verb (LIST/GET/POST/WATCH), scope, dry_run, code', async () => {
  const c = s.client;
  const ns = 'metrics-a';
  assert.is((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  const P = `/api/v1/namespaces/${ns}/configmaps`;
  assert.is((await c.request('POST', P, { body: { metadata: { name: 'x' } } })).status, 201);
  assert.is((await c.request('POST', `${P}?dryRun=All`, { body: { metadata: { name: 'y' } } })).status, 201);
  assert.is((await c.request('GET', `${P}/x`)).status, 200);
  assert.is((await c.request('GET', `${P}/nope`)).status, 404);
  assert.is((await c.request('GET', P)).status, 200);
  assert.is((await c.request('GET', '/api/v1/configmaps')).status, 200);
  assert.is((await c.request('GET', `${P}?watch=1&timeoutSeconds=1`)).status, 200);
  assert.is((await c.request('PATCH', `${P}/x`, { raw: '{"data":{"a":"b"}}', contentType: 'application/merge-patch+json' })).status, 200);
  assert.is((await c.request('DELETE', `${P}/x`)).status, 200);
  assert.is((await c.request('GET', '/readyz')).status, 200);
  assert.is((await c.request('GET', '/version')).status, 200);

  const { text, series } = await scrape();
  const want: [string, number][] = [
    [req({ verb: 'POST', resource: 'namespaces', scope: 'resource', code: 201 }), 1],
    [req({ verb: 'POST', resource: 'configmaps', scope: 'resource', code: 201 }), 1],
    [req({ verb: 'POST', dry_run: 'All', resource: 'configmaps', scope: 'resource', code: 201 }), 1],
    [req({ verb: 'GET', resource: 'configmaps', scope: 'resource', code: 200 }), 1],
    [req({ verb: 'GET', resource: 'configmaps', scope: 'resource', code: 404 }), 1],
    [req({ verb: 'LIST', resource: 'configmaps', scope: 'namespace', code: 200 }), 1],
    [req({ verb: 'LIST', resource: 'configmaps', scope: 'cluster', code: 200 }), 1],
    [req({ verb: 'WATCH', resource: 'configmaps', scope: 'namespace', code: 200 }), 1],
    [req({ verb: 'PATCH', resource: 'configmaps', scope: 'resource', code: 200 }), 1],
    [req({ verb: 'DELETE', resource: 'configmaps', scope: 'resource', code: 200 }), 1],
    // Health endpoints are instrumented with the path as subresource and no component; /version is not.
    [req({ verb: 'GET', version: '', subresource: '/readyz', component: '', code: 200 }), 1],
  ];
  for (const [k, v] of want) assert.is(series.get(k), v, `${k} in\n${text.split('\n').filter((l) => l.startsWith('apiserver_request_total')).join('\n')}`);
  assert.not.ok([...series.keys()].some((k) => k.startsWith('apiserver_request_total') && k.includes('/version')), '/version is not instrumented');
  const hist = 'apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"}';
  assert.is(series.get(hist), 1, hist);
  const bucket = 'apiserver_request_duration_seconds_bucket{le="60",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"}';
  assert.is(series.get(bucket), 1, 'kube buckets end at 60 s');
  assert.match(text, '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.\n# TYPE apiserver_request_total counter');
});

test('long-running watches: apiserver_longrunning_requests while open, back to 0 after', async () => {
  const c = s.client;
  const key = 'apiserver_longrunning_requests{component="apiserver",group="",resource="secrets",scope="cluster",subresource="",verb="WATCH",version="v1"}';
  const watch = c.request('GET', '/api/v1/secrets?watch=1&timeoutSeconds=2');
  await new Promise((r) => setTimeout(r, 500));
  assert.is((await scrape()).series.get(key), 1);
  assert.is((await watch).status, 200);
  await new Promise((r) => setTimeout(r, 100));
  assert.is((await scrape()).series.get(key), 0);
});

test('a deprecated version sets apiserver_requested_deprecated_apis with removed_release', async () => {
  const before = (await scrape()).series;
  assert.not.ok([...before.keys()].some((k) => k.startsWith('apiserver_requested_deprecated_apis{')), 'nothing requested yet');
  const r = await s.client.request('GET', '/apis/events.k8s.io/v1beta1/namespaces/default/events');
  assert.is(r.status, 200);
  const { series } = await scrape();
  assert.is(series.get('apiserver_requested_deprecated_apis{group="events.k8s.io",removed_release="1.25",resource="events",subresource="",version="v1beta1"}'), 1);
  assert.is(series.get(req({ verb: 'LIST', group: 'events.k8s.io', version: 'v1beta1', resource: 'events', scope: 'namespace', code: 200 })), 1);
  // The served, non-deprecated version sets nothing.
  assert.is((await s.client.request('GET', '/apis/events.k8s.io/v1/events')).status, 200);
  assert.not.ok([...(await scrape()).series.keys()].some((k) => k.includes('deprecated_apis') && k.includes('version="v1"')));
});

test('apiserver_storage_objects counts what is stored, by kube resource name', async () => {
  const c = s.client;
  await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'metrics-b' } } });
  for (let i = 0; i < 3; i++) assert.is((await c.request('POST', '/api/v1/namespaces/metrics-b/secrets', { body: { metadata: { name: `s${i}` } } })).status, 201);
  const secrets = (await c.request('GET', '/api/v1/secrets')).json.items.length as number;
  const namespaces = (await c.request('GET', '/api/v1/namespaces')).json.items.length as number;
  const { series } = await scrape();
  assert.is(series.get('apiserver_storage_objects{resource="secrets"}'), secrets);
  assert.is(series.get('apiserver_storage_objects{resource="namespaces"}'), namespaces);
  assert.ok(secrets >= 3);
});

test("this server's own metrics: folded offset = the newest resourceVersion, group commits observed", async () => {
  const r = await s.client.request('GET', '/api/v1/namespaces');
  const rv = Number(r.json.metadata.resourceVersion);
  const { series } = await scrape();
  assert.is(series.get('eventlog_folded_offset'), rv);
  assert.is(series.get('eventlog_end_offset'), rv + 1);
  assert.is(series.get('eventlog_fold_lag_events'), 0);
  assert.ok((series.get('eventlog_append_batch_events_count{backend="embedded"}') ?? 0) > 0);
  assert.ok((series.get('eventlog_events_folded_total') ?? 0) > 0);
  assert.ok(series.has('watch_ring_changes') && series.has('watch_ring_bytes'));
  assert.ok((series.get('process_resident_memory_bytes') ?? 0) > 0, 'process metrics');
  assert.ok(series.has('apiserver_current_inflight_requests{request_kind="readOnly"}') && series.has('apiserver_current_inflight_requests{request_kind="mutating"}'));
});

test('metric lifecycle: metrics deprecated in 1.23 are hidden unless --show-hidden-metrics-for-version', async () => {
  const { text } = await scrape();
  assert.not.match(text, 'apiserver_registered_watchers');
  assert.not.match(text, 'apiserver_longrunning_gauge');
  const shown = await startTestServer({ showHiddenMetrics: true });
  try {
    const watch = shown.client.request('GET', '/api/v1/configmaps?watch=1&timeoutSeconds=2');
    await new Promise((r) => setTimeout(r, 500));
    const m = await scrape(shown);
    assert.match(m.text, '# HELP apiserver_registered_watchers [ALPHA] (Deprecated since 1.23.0) Number of currently registered watchers for a given resources\n');
    assert.is(m.series.get('apiserver_registered_watchers{group="",kind="ConfigMap",version="v1"}'), 1);
    assert.match(m.text, '# HELP apiserver_longrunning_gauge [ALPHA] (Deprecated since 1.23.0) ');
    await watch;
  } finally {
    await shown.close();
  }
});

test('--show-hidden-metrics-for-version accepts only the previous minor (kube message), else start-up fails', async () => {
  const dir = tempDir();
  const proc = spawn(process.execPath, [...nodeArgsFor('cmd/apiserver.ts'), '--data-dir', dir, '--secure-port', '0', '--show-hidden-metrics-for-version', '1.22'], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c));
  const code = await new Promise<number | null>((r) => proc.on('exit', r));
  assert.is(code, 1);
  assert.match(err, "--show-hidden-metrics-for-version must be omitted or have the value '1.23'. Only the previous minor version is allowed");
});

test('/metrics is authorized like kube\'s non-resource URL: anonymous gets 403', async () => {
  const anon = clientFor(s.url, join(s.dataDir, 'pki'), null);
  try {
    const r = await anon.request('GET', '/metrics');
    assert.is(r.status, 403);
    assert.is(r.json.message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
  } finally {
    await anon.close();
  }
});

test.run();
