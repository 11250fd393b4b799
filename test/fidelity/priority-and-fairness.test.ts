/**
 * API Priority and Fairness as kube-apiserver 1.24 runs it by default, driven through HTTP with a
 * tiny server concurrency limit (--max-requests-inflight=1 --max-mutating-requests-inflight=1:
 * every limited priority level gets ceil(2 × shares / 245) = 1 seat): classification and the
 * X-Kubernetes-PF-* headers, a flood of one ServiceAccount's creates answered with kube's 429
 * (queues of 50 full) while system:masters and the health probes are still answered, the
 * apiserver_flowcontrol_* metrics and the debug dumps, watches holding a seat only while they start.
 *
 * Runs on this server and, with TEST_KUBECONFIG, on the reference started with the same limits:
 *   EXTRA_APISERVER_FLAGS="--max-requests-inflight=1 --max-mutating-requests-inflight=1" \
 *     ../shared/reference/start.sh /tmp/ref 16443
 * The max-in-flight filter (--enable-priority-and-fairness=false) runs on this server only (the
 * reference would need another start with other flags; its 429 is the same function's).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent } from 'undici';
import { agentClient, eventually, startTestServer, type Client, type HttpResult } from '../harness.ts';
import { readKubeconfig, startTarget, type Target } from '../target.ts';

let t: Target;
let ns: string;
const clients: Client[] = [];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Enough parallel requests of one flow to fill its hand of 6 queues × 50 behind one seat. */
const FLOOD = 480;

/** A client without a certificate (anonymous unless a token is given), `connections` sockets. */
function bearer(url: string, ca: string, token?: string, connections = 8): Client {
  const c = agentClient(url, new Agent({ connect: { ca }, connections, pipelining: 1 }), token ? { authorization: `Bearer ${token}` } : {});
  clients.push(c);
  return c;
}

const pf = (r: HttpResult): [string, string] => [String(r.headers['x-kubernetes-pf-flowschema-uid']), String(r.headers['x-kubernetes-pf-prioritylevel-uid'])];

test.before(async () => {
  t = await startTarget({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, namespaceDefaults: false });
  ns = await t.createNamespace('apf');
});

test.after(async () => {
  for (const c of clients) await c.close();
  await t.close();
});

/** A ServiceAccount of `ns` allowed to read and create its ConfigMaps, and its token (flow schema service-accounts). */
async function serviceAccountToken(name: string, admin = t.client, kubeconfig = t.kubeconfig, namespace = ns): Promise<string> {
  const ns = namespace;
  let r = await admin.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } } });
  assert.is(r.status, 201, r.text);
  // A Role of its own: the reference runs no controller-manager, so `edit` is never aggregated.
  r = await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create'] }] },
  });
  assert.is(r.status, 201, r.text);
  r = await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name, namespace: ns }] },
  });
  assert.is(r.status, 201, r.text);
  r = await admin.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
  assert.is(r.status, 201, r.text);
  const token = r.json.status.token as string;
  // The reference's RBAC follows its informers: wait until the binding is in effect.
  const k = readKubeconfig(kubeconfig);
  const probe = agentClient(k.server, new Agent({ connect: { ca: k.ca } }), { authorization: `Bearer ${token}` });
  await eventually(`${name} may list configmaps`, async () => (await probe.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`)).status === 200);
  await probe.close();
  return token;
}

test('every answer names its FlowSchema and priority level by uid: masters exempt, probes exempt, the rest global-default', async () => {
  const k = readKubeconfig(t.kubeconfig);
  const anonymous = bearer(k.server, k.ca);
  const admin = await t.client.request('GET', `/api/v1/namespaces/${ns}`);
  const adminProbe = await t.client.request('GET', '/readyz');
  const probe = await anonymous.request('GET', '/healthz');
  const probeSub = await anonymous.request('GET', '/livez/ping');
  const version = await anonymous.request('GET', '/version');
  const forbidden = await anonymous.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  for (const r of [admin, adminProbe, probe, probeSub, version, forbidden]) for (const uid of pf(r)) assert.match(uid, UUID);
  // system:masters → FlowSchema exempt, whatever the path.
  assert.equal(pf(adminProbe), pf(admin));
  // An anonymous probe → FlowSchema probes (its own uid), priority level exempt (the masters' one).
  assert.is.not(pf(probe)[0], pf(admin)[0]);
  assert.is(pf(probe)[1], pf(admin)[1]);
  assert.equal(pf(probeSub), pf(probe));
  // Everything else anonymous → global-default, also when authorization then refuses it (APF runs first).
  assert.is(forbidden.status, 403);
  assert.equal(pf(forbidden), pf(version));
  assert.is.not(pf(version)[1], pf(admin)[1]);
});

test('a flood of one flow past its queues is answered 429 with Retry-After, while masters and probes are served', async () => {
  const token = await serviceAccountToken('flood');
  const k = readKubeconfig(t.kubeconfig);
  const sa = bearer(k.server, k.ca, token, FLOOD);
  const anonymous = bearer(k.server, k.ca);
  // Open every connection first (TLS handshakes), so the creates below arrive together.
  const warm = await Promise.all(Array.from({ length: FLOOD }, () => sa.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`)));
  assert.ok(warm.every((r) => r.status === 200 || r.status === 429), `warm-up: ${[...new Set(warm.map((r) => r.status))]}`);
  const flood = Array.from({ length: FLOOD }, (_, i) => sa.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(512) } } }));
  // While the flood waits in its queues: system:masters and the probes go through at once.
  const admin = await t.client.request('GET', `/api/v1/namespaces/${ns}`);
  const probes = await Promise.all(['/healthz', '/readyz', '/livez'].map((p) => anonymous.request('GET', p)));
  const answers = await Promise.all(flood);
  assert.is(admin.status, 200);
  for (const p of probes) assert.is(p.status, 200, p.text);

  const codes = new Map<number, number>();
  for (const r of answers) codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
  const rejected = answers.filter((r) => r.status === 429);
  assert.ok(rejected.length > 0, `some creates rejected: ${JSON.stringify([...codes])}`);
  assert.ok((codes.get(201) ?? 0) > 0, `some creates served: ${JSON.stringify([...codes])}`);
  assert.is((codes.get(201) ?? 0) + rejected.length, FLOOD, `only 201 and 429: ${JSON.stringify([...codes])}`);
  const r = rejected[0]!;
  // kube 1.24's tooManyRequests: http.Error's plain text, not a Status.
  assert.is(r.text, 'Too many requests, please try again later.\n');
  assert.is(r.headers['retry-after'], '1');
  assert.is(r.headers['content-type'], 'text/plain; charset=utf-8');
  assert.is(r.headers['x-content-type-options'], 'nosniff');
  const served = answers.find((x) => x.status === 201)!;
  // The rejected request was classified as the served ones: same FlowSchema and priority level.
  assert.equal(pf(r), pf(served));
  for (const uid of pf(r)) assert.match(uid, UUID);
});

/** Series of one metric: label sets (as written) → value. */
function series(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

test('apiserver_flowcontrol_* metrics count the flood: rejections by reason, dispatches, limits, waits', async () => {
  const r = await t.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } });
  assert.is(r.status, 200);
  const m = r.text;
  const labels = '{flow_schema="service-accounts",priority_level="workload-low"';
  assert.ok((series(m, 'apiserver_flowcontrol_rejected_requests_total').get(`${labels},reason="queue-full"}`) ?? 0) > 0, 'queue-full rejections');
  assert.ok((series(m, 'apiserver_flowcontrol_dispatched_requests_total').get(`${labels}}`) ?? 0) > 0, 'dispatched');
  assert.ok((series(m, 'apiserver_flowcontrol_dispatched_requests_total').get('{flow_schema="exempt",priority_level="exempt"}') ?? 0) > 0, 'exempt dispatched');
  const limits = series(m, 'apiserver_flowcontrol_request_concurrency_limit');
  for (const pl of ['catch-all', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']) assert.is(limits.get(`{priority_level="${pl}"}`), 1, `limit of ${pl}`);
  assert.is(limits.has('{priority_level="exempt"}'), false);
  assert.is(series(m, 'apiserver_flowcontrol_current_inqueue_requests').get(`${labels}}`), 0);
  assert.is(series(m, 'apiserver_flowcontrol_current_executing_requests').get(`${labels}}`), 0);
  assert.is(series(m, 'apiserver_flowcontrol_request_concurrency_in_use').get(`${labels}}`), 0);
  assert.ok((series(m, 'apiserver_flowcontrol_request_wait_duration_seconds_count').get(`{execute="true",${labels.slice(1)}}`) ?? 0) > 0, 'waits of executed requests');
  assert.ok((series(m, 'apiserver_flowcontrol_request_execution_seconds_count').get(`${labels},type="regular"}`) ?? 0) > 0, 'execution seconds');
  assert.ok(series(m, 'apiserver_flowcontrol_request_queue_length_after_enqueue_count').has(`${labels}}`), 'queue length histogram');
  assert.ok(series(m, 'apiserver_flowcontrol_work_estimated_seats_count').has(`${labels}}`), 'estimated seats histogram');
  assert.ok(series(m, 'apiserver_flowcontrol_current_r').has('{priority_level="workload-low"}'), 'current_r');
  // Every 429 is also a termination in self-defense, and a request_total with code 429.
  const posts = '{code="429",component="apiserver",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"}';
  const rejectedPosts = series(m, 'apiserver_request_terminations_total').get(posts) ?? 0;
  assert.ok(rejectedPosts > 0, 'terminations');
  assert.is(series(m, 'apiserver_request_total').get('{code="429",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"}'), rejectedPosts);
  assert.ok((series(m, 'apiserver_dropped_requests_total').get('{request_kind="mutating"}') ?? 0) >= rejectedPosts, 'dropped (mutating)');
  for (const name of ['apiserver_flowcontrol_rejected_requests_total', 'apiserver_flowcontrol_dispatched_requests_total', 'apiserver_flowcontrol_current_inqueue_requests', 'apiserver_flowcontrol_current_executing_requests', 'apiserver_flowcontrol_request_wait_duration_seconds', 'apiserver_flowcontrol_request_concurrency_limit']) {
    assert.match(m, new RegExp(`^# HELP ${name} \\[ALPHA\\] `, 'm'), name);
  }
});

test('debug dumps: kube columns, one row per priority level / per queue', async () => {
  const levels = await t.client.request('GET', '/debug/api_priority_and_fairness/dump_priority_levels');
  assert.is(levels.status, 200, levels.text);
  const lines = levels.text.trimEnd().split('\n');
  assert.is(lines[0], 'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests');
  const names = lines.slice(1).map((l) => l.split(',')[0]!.trim()).sort();
  assert.equal(names, ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
  assert.match(levels.text, /^exempt, +<none>, +<none>, +<none>, +<none>, +<none>$/m);
  assert.match(levels.text, /^workload-low, +0, +true, +false, +0, +0$/m);
  const queues = await t.client.request('GET', '/debug/api_priority_and_fairness/dump_queues');
  const q = queues.text.trimEnd().split('\n');
  assert.is(q[0], 'PriorityLevelName, Index,  PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, InitialSeatsSum, MaxSeatsSum, TotalWorkSum');
  assert.is(queues.headers['content-type'], 'text/plain; charset=utf-8');
  // 64 + 64 + 16 + 128 × 3 queues, the exempt level's <none> row, none for catch-all (no queues).
  assert.is(q.length - 1, 64 + 64 + 16 + 128 * 3 + 1);
  assert.match(queues.text, /^exempt, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>$/m);
  assert.match(queues.text, /^workload-low, +127, +0, +0, +0, +\d+\.\d{8}ss, +0, +0, +0\.00000000ss$/m);
  const requests = await t.client.request('GET', '/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1');
  // Nothing waits now: the header only, padded by tabwriter (cells of at least 8 columns).
  assert.is(requests.text, 'PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher, ArriveTime, InitialSeats, FinalSeats, AdditionalLatency, UserName, Verb,   APIPath, Namespace, Name,   APIVersion, Resource, SubResource\n');
  assert.is(requests.headers['x-content-type-options'], undefined);
});

test('a watch holds its seat only while it starts: a flow with 1 seat keeps being served beside its open watches', async () => {
  const token = await serviceAccountToken('watcher');
  const k = readKubeconfig(t.kubeconfig);
  const sa = bearer(k.server, k.ca, token, 16);
  const watches = await Promise.all(
    Array.from({ length: 6 }, async () => {
      const ac = new AbortController();
      const res = await fetchWatch(k, token, `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=30`, ac.signal);
      return { status: res, ac };
    }),
  );
  for (const w of watches) assert.is(w.status, 200);
  for (let i = 0; i < 5; i++) {
    const r = await sa.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`);
    assert.is(r.status, 200, r.text);
  }
  for (const w of watches) w.ac.abort();
});

/** Open a watch and return its status once the headers arrived (the body stays open). */
async function fetchWatch(k: ReturnType<typeof readKubeconfig>, token: string, path: string, signal: AbortSignal): Promise<number> {
  const agent = new Agent({ connect: { ca: k.ca } });
  const { request } = await import('undici');
  const r = await request(k.server + path, { headers: { authorization: `Bearer ${token}` }, dispatcher: agent, signal });
  r.body.on('error', () => undefined);
  signal.addEventListener('abort', () => void agent.destroy().catch(() => undefined));
  return r.statusCode;
}

test('--enable-priority-and-fairness=false: the max-in-flight filter answers 429 over its limit, no PF headers; masters pass', async () => {
  if (t.reference) return; // needs a server started with other flags
  const s = await startTestServer({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, enablePriorityAndFairness: false, namespaceDefaults: false });
  try {
    let r = await s.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mif' } } });
    assert.is(r.status, 201, r.text);
    // system:masters over the limit: served anyway (kube's exception), never 429.
    const masters = await Promise.all(Array.from({ length: 40 }, (_, i) => s.client.request('POST', '/api/v1/namespaces/mif/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `m-${i}` } } })));
    assert.ok(masters.every((x) => x.status === 201), 'masters never limited');
    assert.is(masters[0]!.headers['x-kubernetes-pf-flowschema-uid'], undefined);
    const kubeconfig = join(s.dataDir, 'kubeconfig');
    const k = readKubeconfig(kubeconfig);
    const sa = bearer(k.server, k.ca, await serviceAccountToken('mif', s.client, kubeconfig, 'mif'), 64);
    await Promise.all(Array.from({ length: 64 }, () => sa.request('GET', '/version')));
    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => sa.request('POST', '/api/v1/namespaces/mif/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `s-${i}` } } })));
    const rejected = answers.filter((x) => x.status === 429);
    assert.ok(rejected.length > 0, `some rejected: ${answers.map((x) => x.status).join(',')}`);
    assert.ok(answers.every((x) => x.status === 429 || x.status === 201), answers.map((x) => x.status).join(','));
    assert.is(rejected[0]!.text, 'Too many requests, please try again later.\n');
    assert.is(rejected[0]!.headers['retry-after'], '1');
  } finally {
    await s.close();
  }
});

test.run();
