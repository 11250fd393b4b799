/**
 * Pods as kube-apiserver 1.24 answers them: the defaulted body (with the Priority and
 * DefaultTolerationSeconds admission plugins' additions), 422 bodies, the update "may not change"
 * rule, /status and /ephemeralcontainers isolation, eviction, graceful deletion, field selectors,
 * the Table and discovery. Runs on this server and, with TEST_KUBECONFIG, on the reference.
 *
 * The reference runs the ServiceAccount admission plugin, which this branch does not have: the
 * suite creates the `default` ServiceAccount there and gives every Pod `serviceAccountName:
 * default` with `automountServiceAccountToken: false`, so both servers answer the same.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { startTarget, normalize, readKubeconfig, type Target } from '../target.ts';
import { decodeProtobuf, encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';
import { openWatchStream } from '../watch-stream.ts';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';

let t: Target;
let ns: string;
let P: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('pod');
  P = `/api/v1/namespaces/${ns}/pods`;
  if (t.reference) {
    const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    if (r.status !== 201 && r.status !== 409) throw new Error(`service account: ${show(r)}`);
  }
});
/** Remove every Pod of the suite's namespace at once (the reference has no namespace controller). */
async function removePods(): Promise<void> {
  const l = await t.client.request('GET', `/api/v1/namespaces/${ns}/pods`);
  for (const p of ((l.json as any)?.items ?? []) as any[]) {
    await t.client.request('DELETE', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
  }
}

test.after(async () => {
  await removePods();
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { serviceAccountName: 'default', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec },
});

function body(r: HttpResult): any {
  const j = structuredClone(r.json);
  if (j?.metadata?.managedFields) delete j.metadata.managedFields;
  return normalize(j, { [ns]: 'NS' });
}

const post = (path: string, b: unknown) => t.client.request('POST', path, { body: b });

/** The spec fields every Pod of this suite gets from defaulting and admission. */
const DEFAULT_SPEC = {
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  serviceAccountName: 'default',
  serviceAccount: 'default',
  automountServiceAccountToken: false,
  securityContext: {},
  schedulerName: 'default-scheduler',
  tolerations: [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ],
  priority: 0,
  enableServiceLinks: true,
  preemptionPolicy: 'PreemptLowerPriority',
};

const container = (extra: Record<string, unknown>) => ({
  resources: {},
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  ...extra,
});

test('create: the defaulted body, byte for byte in Go field order', async () => {
  const r = await post(
    P,
    pod('a', {
      hostNetwork: true,
      containers: [
        {
          name: 'a',
          image: 'nginx:1.2',
          ports: [{ containerPort: 80 }],
          env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { limits: { cpu: '100u', memory: '1Gi' } },
          livenessProbe: { httpGet: { port: 80 } },
          readinessProbe: { grpc: { port: 9 } },
        },
        { name: 'b', image: 'busybox' },
      ],
    }),
  );
  assert.is(r.status, 201, show(r));
  const j = body(r);
  assert.equal(j.status, { phase: 'Pending', qosClass: 'Burstable' });
  assert.equal(j.spec.containers[0], {
    name: 'a',
    image: 'nginx:1.2',
    ports: [{ hostPort: 80, containerPort: 80, protocol: 'TCP' }],
    env: [{ name: 'X', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
    resources: { limits: { cpu: '1m', memory: '1Gi' }, requests: { cpu: '1m', memory: '1Gi' } },
    livenessProbe: { httpGet: { path: '/', port: 80, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    readinessProbe: { grpc: { port: 9, service: '' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  });
  assert.equal(j.spec.containers[1], container({ name: 'b', image: 'busybox', imagePullPolicy: 'Always' }));
  const { containers: _c, ...rest } = j.spec;
  assert.equal(rest, { ...DEFAULT_SPEC, hostNetwork: true });
  // Go field order of the whole spec.
  assert.equal(Object.keys(rest), ['restartPolicy', 'terminationGracePeriodSeconds', 'dnsPolicy', 'serviceAccountName', 'serviceAccount', 'automountServiceAccountToken', 'hostNetwork', 'securityContext', 'schedulerName', 'tolerations', 'priority', 'enableServiceLinks', 'preemptionPolicy']);
  const g = await t.client.request('GET', `${P}/a`);
  assert.equal(body(g), j, 'read back');
});

test('create: 422 with kube field paths and messages', async () => {
  const r = await post(
    P,
    pod('bad', {
      restartPolicy: 'Sometimes',
      containers: [
        { name: 'Bad_Name', image: '' },
        { name: 'c2', image: 'x', ports: [{ containerPort: 0 }], volumeMounts: [{ name: 'nope', mountPath: '/m' }] },
      ],
    }),
  );
  assert.is(r.status, 422, show(r));
  const causes = (r.json as any).details.causes.map((c: any) => `${c.reason} ${c.field}: ${c.message}`);
  assert.equal(causes, [
    `FieldValueInvalid spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    'FieldValueRequired spec.containers[0].image: Required value',
    'FieldValueRequired spec.containers[1].ports[0].containerPort: Required value',
    'FieldValueNotFound spec.containers[1].volumeMounts[0].name: Not found: "nope"',
    'FieldValueNotSupported spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  ]);
});

test('volumes: defaults of the volumes module, mounts checked against valid volumes', async () => {
  const r = await post(
    P,
    pod('v', {
      volumes: [{ name: 'cm', configMap: { name: 'x' } }, { name: 'e' }, { name: 'bad', secret: { secretName: 's', defaultMode: 1000 } }],
      containers: [{ name: 'c', image: 'nginx:1.25', volumeMounts: [{ name: 'cm', mountPath: '/a' }, { name: 'bad', mountPath: '/b' }] }],
    }),
  );
  assert.is(r.status, 422, show(r));
  const causes = (r.json as any).details.causes.map((c: any) => `${c.reason} ${c.field}: ${c.message}`);
  assert.equal(causes, [
    'FieldValueInvalid spec.volumes[2].secret.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive',
    'FieldValueNotFound spec.containers[0].volumeMounts[1].name: Not found: "bad"',
  ]);
  const ok = await post(P, pod('v', { volumes: [{ name: 'cm', configMap: { name: 'x' } }, { name: 'e' }], containers: [{ name: 'c', image: 'nginx:1.25', volumeMounts: [{ name: 'cm', mountPath: '/a' }] }] }));
  assert.is(ok.status, 201, show(ok));
  assert.equal((ok.json as any).spec.volumes, [{ name: 'cm', configMap: { name: 'x', defaultMode: 420 } }, { name: 'e', emptyDir: {} }]);
});

test('admission: RuntimeClass refuses an unknown class and an overhead without one (403)', async () => {
  const rc = await post(P, pod('rc', { runtimeClassName: 'gvisor' }));
  assert.is(rc.status, 403, show(rc));
  assert.is((rc.json as any).message, 'pods "rc" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
  const oh = await post(P, pod('oh', { overhead: { cpu: '10m' } }));
  assert.is(oh.status, 403, show(oh));
  assert.is((oh.json as any).message, 'pods "oh" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  const pc = await post(P, pod('pc', { priorityClassName: 'nope' }));
  assert.is(pc.status, 403, show(pc));
  assert.is((pc.json as any).message, 'pods "pc" is forbidden: no PriorityClass with name nope was found');
});

test('update: only images and a few fields may change (kube message)', async () => {
  assert.is((await post(P, pod('u'))).status, 201);
  const g = (await t.client.request('GET', `${P}/u`)).json as any;
  g.spec.containers[0].image = 'nginx:1.26';
  const ok = await t.client.request('PUT', `${P}/u`, { body: g });
  assert.is(ok.status, 200, show(ok));
  const bad = structuredClone(ok.json as any);
  bad.spec.restartPolicy = 'Never';
  const r = await t.client.request('PUT', `${P}/u`, { body: bad });
  assert.is(r.status, 422, show(r));
  const cause = (r.json as any).details.causes[0];
  assert.is(cause.field, 'spec');
  assert.ok(
    cause.message.startsWith(
      'Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
    ),
    cause.message,
  );
  // Status written through the main resource is ignored.
  const s = structuredClone(ok.json as any);
  s.status = { phase: 'Running' };
  const r2 = await t.client.request('PUT', `${P}/u`, { body: s });
  assert.is(r2.status, 200, show(r2));
  assert.is((r2.json as any).status.phase, 'Pending');
});

test('/status changes only status; /ephemeralcontainers only ephemeral containers', async () => {
  assert.is((await post(P, pod('s'))).status, 201);
  const g = (await t.client.request('GET', `${P}/s/status`)).json as any;
  g.status = { phase: 'Running', podIP: '10.1.2.3', podIPs: [{ ip: '10.1.2.3' }] };
  g.spec.restartPolicy = 'Never';
  const r = await t.client.request('PUT', `${P}/s/status`, { body: g });
  assert.is(r.status, 200, show(r));
  assert.is((r.json as any).status.phase, 'Running');
  assert.is((r.json as any).spec.restartPolicy, 'Always', 'spec kept');
  const sel = await t.client.request('GET', `${P}?fieldSelector=status.podIP%3D10.1.2.3`);
  assert.equal(((sel.json as any).items as any[]).map((x) => x.metadata.name), ['s']);
  const phase = await t.client.request('GET', `${P}?fieldSelector=status.phase%3DPending,spec.restartPolicy%3DAlways`);
  assert.not.ok(((phase.json as any).items as any[]).some((x) => x.metadata.name === 's'));

  const e = (await t.client.request('GET', `${P}/s/ephemeralcontainers`)).json as any;
  e.spec.ephemeralContainers = [{ name: 'debug', image: 'busybox', targetContainerName: 'c' }];
  e.metadata.labels = { ignored: 'yes' };
  const er = await t.client.request('PUT', `${P}/s/ephemeralcontainers`, { body: e });
  assert.is(er.status, 200, show(er));
  assert.equal((er.json as any).spec.ephemeralContainers, [
    { name: 'debug', image: 'busybox', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always', targetContainerName: 'c' },
  ]);
  assert.is((er.json as any).metadata.labels, undefined, 'metadata kept');
  const create = await post(P, pod('eph', { ephemeralContainers: [{ name: 'd', image: 'busybox' }] }));
  assert.is(create.status, 422, show(create));
  assert.is((create.json as any).details.causes.at(-1).message, 'Forbidden: cannot be set on create');
});

test('graceful deletion: unscheduled pods go at once, scheduled ones wait for a zero grace period', async () => {
  assert.is((await post(P, pod('d1'))).status, 201);
  const d1 = await t.client.request('DELETE', `${P}/d1`);
  assert.is(d1.status, 200, show(d1));
  assert.is((d1.json as any).metadata.deletionGracePeriodSeconds, 0);
  assert.is((await t.client.request('GET', `${P}/d1`)).status, 404);

  assert.is((await post(P, pod('d2', { nodeName: 'node-1' }))).status, 201);
  const d2 = await t.client.request('DELETE', `${P}/d2`);
  assert.is(d2.status, 200, show(d2));
  assert.is((d2.json as any).metadata.deletionGracePeriodSeconds, 30);
  const still = await t.client.request('GET', `${P}/d2?as=Table`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is((still.json as any).rows[0].cells[2], 'Terminating');
  const again = await t.client.request('DELETE', `${P}/d2`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 10 } });
  assert.is((again.json as any).metadata.deletionGracePeriodSeconds, 10);
  const now = await t.client.request('DELETE', `${P}/d2`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
  assert.is(now.status, 200, show(now));
  assert.is((await t.client.request('GET', `${P}/d2`)).status, 404);
});

test('watch: a graceful delete with a zero period is a MODIFIED (marked) and a DELETED', async () => {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  const w = await openWatchStream(t.url, agent, `${P}?watch=1&fieldSelector=${encodeURIComponent('metadata.name=wt')}`);
  try {
    assert.is((await post(P, pod('wt'))).status, 201);
    const d = await t.client.request('DELETE', `${P}/wt`);
    assert.is(d.status, 200, show(d));
    const events = await w.waitFor(3);
    assert.equal(events.map((e: any) => [e.type, e.object.metadata.deletionGracePeriodSeconds ?? null]), [['ADDED', null], ['MODIFIED', 0], ['DELETED', 0]]);
    assert.is((d.json as any).metadata.resourceVersion, (events[1]!.object as any).metadata.resourceVersion, 'the answer is the marked object');
  } finally {
    w.close();
    await agent.close();
  }
});

test('eviction: policy/v1 Eviction deletes the pod', async () => {
  assert.is((await post(P, pod('ev'))).status, 201);
  const wrong = await post(`${P}/ev/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } });
  assert.is(wrong.status, 400, show(wrong));
  assert.is((wrong.json as any).message, 'name in URL does not match name in Eviction object');
  const r = await post(`${P}/ev/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'ev' } });
  assert.is(r.status, 201, show(r));
  assert.equal(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  assert.is((await t.client.request('GET', `${P}/ev`)).status, 404);
  const missing = await post(`${P}/ev/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'ev' } });
  assert.is(missing.status, 404, show(missing));
});

test('binding: assigns an unscheduled pod to a node, once', async () => {
  assert.is((await post(P, pod('bd'))).status, 201);
  const bad = await post(`${P}/bd/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bd' }, target: { kind: 'Pod' } });
  assert.is(bad.status, 500, show(bad));
  assert.is((bad.json as any).message, '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]');
  const other = await post(`${P}/bd/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'zz' }, target: { name: 'n1' } });
  assert.is(other.status, 400, show(other));
  assert.is((other.json as any).message, 'name in URL does not match name in Binding object');
  const ok = await post(`${P}/bd/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bd', annotations: { a: 'b' } }, target: { name: 'n1' } });
  assert.is(ok.status, 201, show(ok));
  assert.equal(ok.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const again = await post(`${P}/bd/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bd' }, target: { name: 'n2' } });
  assert.is(again.status, 409, show(again));
  assert.is((again.json as any).message, 'Operation cannot be fulfilled on pods/binding "bd": pod bd is already assigned to node "n1"');
  const g = body(await t.client.request('GET', `${P}/bd`));
  assert.equal([g.metadata.annotations, g.spec.nodeName, g.status], [{ a: 'b' }, 'n1', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '<time>' }], qosClass: 'BestEffort' }]);
});

test('table: printPod columns and cells', async () => {
  assert.is((await post(P, pod('tb', { readinessGates: [{ conditionType: 'x.io/ready' }] }))).status, 201);
  const r = await t.client.request('GET', `${P}/tb`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(r.status, 200, show(r));
  const j = r.json as any;
  assert.equal(
    j.columnDefinitions.map((c: any) => [c.name, c.priority]),
    [['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]],
  );
  const cells = j.rows[0].cells;
  assert.equal([cells[0], cells[1], cells[2], cells[3], ...cells.slice(5)], ['tb', '0/1', 'Pending', '0', '<none>', '<none>', '<none>', '0/1']);
});

/** Go's JSON has `"lastProbeTime": null` and friends where the protobuf decoder leaves the key out. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}

/** A request with Protobuf bytes in and/or out (the suite's client reads bodies as text). */
async function protobufRequest(method: string, path: string, body?: Buffer): Promise<{ status: number; bytes: Buffer }> {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const headers: Record<string, string> = { accept: PROTOBUF };
    if (body) headers['content-type'] = PROTOBUF;
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    const r = await undiciRequest(k.server + path, { method: method as 'GET', headers, body, dispatcher: agent });
    return { status: r.statusCode, bytes: Buffer.from(await r.body.arrayBuffer()) };
  } finally {
    await agent.close();
  }
}

test('protobuf: a rich Pod round-trips (create from protobuf, bytes decode to the JSON and re-encode)', async () => {
  const rich = pod('pb', {
    nodeName: 'node-1',
    volumes: [
      { name: 'cm', configMap: { name: 'x', items: [{ key: 'k', path: 'p', mode: 256 }], optional: true } },
      { name: 'pj', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
      { name: 'e' },
    ],
    initContainers: [{ name: 'init', image: 'busybox', command: ['true'], resources: { requests: { cpu: '250m' } } }],
    containers: [
      {
        name: 'c',
        image: 'nginx:1.25',
        args: ['a', 'b'],
        ports: [{ name: 'http', containerPort: 8080, protocol: 'UDP' }],
        env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }],
        envFrom: [{ prefix: 'P_', configMapRef: { name: 'x', optional: false } }],
        resources: { limits: { cpu: '1', memory: '512Mi' } },
        volumeMounts: [{ name: 'cm', mountPath: '/cm', readOnly: true }],
        livenessProbe: { exec: { command: ['ls'] }, initialDelaySeconds: 5 },
        readinessProbe: { tcpSocket: { port: 'http' } },
        startupProbe: { httpGet: { port: 8080, httpHeaders: [{ name: 'X-A', value: 'b' }] } },
        lifecycle: { preStop: { exec: { command: ['sleep', '1'] } } },
        securityContext: { runAsUser: 0, runAsNonRoot: false, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] }, readOnlyRootFilesystem: true },
      },
    ],
    securityContext: { fsGroup: 2000, sysctls: [{ name: 'net.ipv4.ip_forward', value: '1' }] },
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
    tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }],
    hostAliases: [{ ip: '10.0.0.9', hostnames: ['h.example'] }],
    dnsConfig: { nameservers: ['1.1.1.1'], options: [{ name: 'ndots', value: '2' }] },
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { a: 'b' } } }],
    readinessGates: [{ conditionType: 'x.io/ready' }],
    os: { name: 'linux' },
  }, { labels: { app: 'pb' }, annotations: { note: 'x' } });
  const created = await protobufRequest('POST', P, encodeProtobuf(rich as any));
  assert.is(created.status, 201, created.bytes.toString());
  const st = (await t.client.request('GET', `${P}/pb`)).json as any;
  st.status = {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-02T03:04:05Z' }],
    hostIP: '192.0.2.1',
    podIP: '10.1.0.5',
    podIPs: [{ ip: '10.1.0.5' }],
    startTime: '2026-01-02T03:04:00Z',
    containerStatuses: [
      { name: 'c', state: { running: { startedAt: '2026-01-02T03:04:01Z' } }, lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: '2026-01-02T03:03:00Z', finishedAt: '2026-01-02T03:03:59Z' } }, ready: true, restartCount: 2, image: 'nginx:1.25', imageID: 'sha', containerID: 'containerd://1', started: true },
    ],
    qosClass: 'Burstable',
  };
  const put = await t.client.request('PUT', `${P}/pb/status`, { body: st });
  assert.is(put.status, 200, show(put));
  for (const path of [`${P}/pb`, P]) {
    const json = (await t.client.request('GET', path)).json as any;
    const got = await protobufRequest('GET', path);
    assert.is(got.status, 200);
    const decoded = decodeProtobuf(got.bytes).object as any;
    if (json.kind === 'PodList') decoded.metadata.resourceVersion = json.metadata.resourceVersion;
    assert.equal(decoded, dropNulls(json), `${path}: protobuf decodes to the JSON`);
    if (json.kind === 'Pod') assert.ok(encodeProtobuf(json).equals(got.bytes), `${path}: JSON re-encodes to the same bytes`);
  }
  const table = await t.client.request('GET', `${P}/pb`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  const cells = (table.json as any).rows[0].cells;
  assert.equal([cells[1], cells[2], cells[3].replace(/\(.*\)/, '(ago)'), ...cells.slice(5)], ['1/1', 'Running', '2 (ago)', '10.1.0.5', 'node-1', '<none>', '0/1']);
  const ev = await protobufRequest('POST', `${P}/pb/eviction`, encodeProtobuf({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'pb' }, deleteOptions: { gracePeriodSeconds: 0 } } as any));
  assert.is(ev.status, 201, ev.bytes.toString());
  assert.equal(decodeProtobuf(ev.bytes).object, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  assert.is((await t.client.request('GET', `${P}/pb`)).status, 404);
});

test('discovery: pods and its subresources as the reference lists them', async () => {
  const r = await t.client.request('GET', '/api/v1');
  const rs = ((r.json as any).resources as any[]).filter((x) => ['pods', 'pods/binding', 'pods/status', 'pods/eviction', 'pods/ephemeralcontainers'].includes(x.name));
  assert.equal(rs, [
    { name: 'pods', singularName: '', namespaced: true, kind: 'Pod', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['po'], categories: ['all'], storageVersionHash: 'xPOwRZ+Yhw8=' },
    { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
    { name: 'pods/ephemeralcontainers', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
    { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
    { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
  ]);
});

test.run();
