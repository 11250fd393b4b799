/**
 * Pod updates as kube-apiserver 1.24 answers them, step by step on one Pod and a few more: the
 * "may not change" rule (activeDeadlineSeconds, tolerations, containers, images, AppArmor
 * annotations), /status validation (conditions, nominatedNodeName, podIPs, nodeName kept),
 * /ephemeralcontainers (forbidden fields, removal, change, duplicate names), field-selector
 * labels (spec.host), fields of disabled gates dropped, the seccomp annotation/field skew, QoS,
 * graceful deletion with dry run and negative periods, and evictions (v1beta1, dry run, a deleting
 * Pod, a body of the wrong kind, GET). Every answer must equal the one recorded from the reference
 * in test/fidelity/golden/pod-updates.json (the suite checks the reference against it too).
 * Regenerate it from the reference:
 *
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/pods-updates.test.ts
 *
 * kube appends a go-cmp diff to the "may not change" message; only its first line is compared
 * here (go-cmp randomizes its spacing per process).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';

const GOLDEN = new URL('./golden/pod-updates.json', import.meta.url);
let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('podupd');
  if (t.reference) await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
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

const firstLine = (s: unknown): unknown => (typeof s === 'string' ? s.split('\n')[0] : s);

test('updates, subresources, deletion and eviction answer as the reference', async () => {
  const P = `/api/v1/namespaces/${ns}/pods`;
  const out: Record<string, unknown> = {};
  const show = (r: any) => (r.status === 422 ? (r.json as any).details.causes.map((c: any) => `${c.reason} ${c.field}: ${c.message}`) : `${r.status} ${(r.json as any)?.message ?? ''}`);
  async function mk(name: string, spec: any = {}) {
    const r = await t.client.request('POST', P, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { serviceAccountName: 'default', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec } } });
    return r.json as any;
  }
  const put = (name: string, body: any, sub = '') => t.client.request('PUT', `${P}/${name}${sub}`, { body });
  let p = await mk('u1', { activeDeadlineSeconds: 100, tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }] });
  let q = structuredClone(p); q.spec.activeDeadlineSeconds = 200; out.adsGrow = show(await put('u1', q));
  q = structuredClone(p); delete q.spec.activeDeadlineSeconds; out.adsNil = show(await put('u1', q));
  q = structuredClone(p); q.spec.tolerations = [{ key: 'b', operator: 'Exists' }]; out.tolChange = show(await put('u1', q));
  q = structuredClone(p); q.spec.tolerations[0].tolerationSeconds = 1; q.spec.activeDeadlineSeconds = 50; q.spec.containers[0].image = 'nginx:2'; out.allowed = show(await put('u1', q));
  p = (await t.client.request('GET', `${P}/u1`)).json;
  q = structuredClone(p); q.spec.containers.push({ name: 'd', image: 'x' }); out.addContainer = show(await put('u1', q));
  q = structuredClone(p); q.spec.restartPolicy = 'Never'; q.spec.dnsPolicy = 'Default'; const r1 = await put('u1', q); out.forbiddenMsg = firstLine((r1.json as any).details?.causes?.[0]?.message); out.forbiddenTop = firstLine((r1.json as any).message);
  q = structuredClone(p); q.spec.containers[0].image = ''; out.imageEmpty = show(await put('u1', q));
  q = structuredClone(p); q.metadata.annotations = { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' }; out.apparmorAdd = show(await put('u1', q));
  // status
  let s = (await t.client.request('GET', `${P}/u1/status`)).json as any;
  s.status = { phase: 'Running', conditions: [{ type: 'bad type!', status: 'True' }], nominatedNodeName: 'Bad_Node', podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'x' }], containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0 } }, ready: false, restartCount: 0, image: 'x', imageID: '' }] };
  out.status = show(await put('u1', s, '/status'));
  s = (await t.client.request('GET', `${P}/u1/status`)).json as any; s.spec.nodeName = 'n2'; s.status.phase = 'Running'; const r2 = await put('u1', s, '/status'); out.statusNode = [r2.status, (r2.json as any).spec?.nodeName];
  // ephemeral
  let e = (await t.client.request('GET', `${P}/u1/ephemeralcontainers`)).json as any;
  e.spec.ephemeralContainers = [{ name: 'dbg', image: 'busybox', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, volumeMounts: [{ name: 'x', mountPath: '/x', subPath: 'a' }] }];
  out.ephBad = show(await put('u1', e, '/ephemeralcontainers'));
  e.spec.ephemeralContainers = [{ name: 'dbg', image: 'busybox' }];
  out.ephOk = show(await put('u1', e, '/ephemeralcontainers'));
  e = (await t.client.request('GET', `${P}/u1/ephemeralcontainers`)).json as any;
  const e2 = structuredClone(e); e2.spec.ephemeralContainers = []; out.ephRemove = show(await put('u1', e2, '/ephemeralcontainers'));
  const e3 = structuredClone(e); e3.spec.ephemeralContainers[0].image = 'other'; const r3 = await put('u1', e3, '/ephemeralcontainers'); out.ephChange = (r3.json as any).details?.causes?.[0]?.message?.split('\n')[0];
  const e4 = structuredClone(e); e4.spec.ephemeralContainers.push({ name: 'c', image: 'x' }); out.ephDup = show(await put('u1', e4, '/ephemeralcontainers'));
  // field selectors
  out.badSel = show(await t.client.request('GET', `${P}?fieldSelector=spec.host%3Dx`));
  const pm = await t.client.request('PATCH', `${P}/u1`, { body: { metadata: { labels: { x: 'y' } }, status: { phase: 'Failed' } }, contentType: 'application/merge-patch+json' });
  out.patchStatusMain = [pm.status, (pm.json as any).status?.phase, (pm.json as any).metadata?.labels];
  const ps = await t.client.request('PATCH', `${P}/u1/status`, { body: { metadata: { labels: { z: 'w' } }, spec: { nodeName: 'n9' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }, contentType: 'application/strategic-merge-patch+json' });
  out.patchStatusSub = [ps.status, (ps.json as any).spec?.nodeName ?? null, (ps.json as any).metadata?.labels, ((ps.json as any).status?.conditions ?? []).map((c: any) => c.type)];
  // probe grace dropped
  const g = await mk('g1', { containers: [{ name: 'c', image: 'x', livenessProbe: { exec: { command: ['a'] }, terminationGracePeriodSeconds: 5 }, securityContext: { procMount: 'Unmasked' } }], topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 }] });
  out.dropped = [g.spec.containers[0].livenessProbe, g.spec.containers[0].securityContext, g.spec.topologySpreadConstraints];
  // seccomp skew
  const sk = await mk('sk1', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', image: 'x', securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }] });
  out.skew = sk.metadata.annotations;
  const sk2 = await t.client.request('POST', P, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sk2', annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/c': 'unconfined' } }, spec: { serviceAccountName: 'default', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'x' }] } } });
  out.skew2 = [(sk2.json as any).spec.securityContext, (sk2.json as any).spec.containers[0].securityContext];
  // qos
  const gq = await mk('q1', { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' } } }] });
  const bq = await mk('q2', { initContainers: [{ name: 'i', image: 'x', resources: { requests: { memory: '1Gi' } } }] });
  out.qos = [gq.status, bq.status];
  // delete of a deleting pod without grace, dry-run delete
  await mk('dd', { nodeName: 'n' });
  const d1 = await t.client.request('DELETE', `${P}/dd`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 60 } });
  const d2 = await t.client.request('DELETE', `${P}/dd`);
  out.del = [d1.status, (d1.json as any).metadata.deletionGracePeriodSeconds, d2.status, (d2.json as any).metadata.deletionGracePeriodSeconds, (d2.json as any).metadata.resourceVersion === (d1.json as any).metadata.resourceVersion];
  const d3 = await t.client.request('DELETE', `${P}/dd?dryRun=All`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
  out.delDry = [d3.status, (d3.json as any).metadata.deletionGracePeriodSeconds, (await t.client.request('GET', `${P}/dd`)).status];
  const d4 = await t.client.request('DELETE', `${P}/dd`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: -5 } });
  out.delNeg = [d4.status, (d4.json as any).metadata?.deletionGracePeriodSeconds];
  // eviction of a deleting / v1beta1 / dry-run
  await mk('ev1', { nodeName: 'n' });
  const ev = await t.client.request('POST', `${P}/ev1/eviction`, { body: { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'ev1' }, deleteOptions: { dryRun: ['All'] } } });
  out.evBeta = [ev.status, ev.json, (await t.client.request('GET', `${P}/ev1`)).status];
  const ev2 = await t.client.request('POST', `${P}/ev1/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'ev1' } } });
  const after = (await t.client.request('GET', `${P}/ev1`)).json as any;
  out.evGrace = [ev2.status, after.metadata?.deletionGracePeriodSeconds];
  const ev3 = await t.client.request('POST', `${P}/ev1/eviction`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ev1' } } });
  out.evWrongKind = [ev3.status, (ev3.json as any).message];
  const ev4 = await t.client.request('GET', `${P}/ev1/eviction`);
  out.evGet = [ev4.status, (ev4.json as any)?.message];

  if (process.env.UPDATE_GOLDEN && t.reference) writeFileSync(GOLDEN, `${JSON.stringify(out, null, 1)}\n`);
  const want = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>;
  const got = JSON.parse(JSON.stringify(out)) as Record<string, unknown>;
  for (const k of Object.keys(want)) assert.equal(got[k], want[k], k);
  assert.equal(Object.keys(got), Object.keys(want));
});

test.run();
