/**
 * The API Priority and Fairness configuration kube-apiserver 1.24 writes at start (its
 * priority-and-fairness-config-producer hook) and keeps (every minute): the mandatory and
 * suggested FlowSchemas and PriorityLevelConfigurations byte for byte as the reference writes them
 * (golden file from the reference: annotations, spec, Dangling status, managedFields' managers and
 * field sets), then what the producer restores and what it leaves alone: a deleted mandatory or
 * suggested object comes back, a changed suggested spec is restored while its
 * `apf.kubernetes.io/autoupdate-spec` annotation is true and left alone when it is "false", and an
 * annotated object that is not part of the configuration is deleted. The objects it changes are
 * deleted or restored at its end, so it can run again against the same cluster.
 *
 * Here the producer runs every 300 ms (apfConfigResyncMs); on the reference every minute, so that
 * test waits up to 70 s there.
 *
 *   node --import tsx test/run.ts test/fidelity/flowcontrol-bootstrap.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/flowcontrol-bootstrap.test.ts
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/flowcontrol-bootstrap.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { show } from '../assertions.ts';
import { normalize, startTarget, type Target } from '../target.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS = `/apis/${GROUP}/v1beta2/flowschemas`;
const PL = `/apis/${GROUP}/v1beta2/prioritylevelconfigurations`;
const GOLDEN = new URL('./golden/flowcontrol-bootstrap.json', import.meta.url);
const ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

let t: Target;
test.before(async () => {
  t = await startTarget({ apfConfigResyncMs: 300 });
});
test.after(async () => {
  await t.close();
});

async function until<T>(get: () => Promise<T>, ok: (x: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const x = await get();
    if (ok(x) || Date.now() > end) return x;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The bootstrap objects of a collection as compared: normalized, sorted by name, uids and times as placeholders. */
async function bootstrapObjects(path: string): Promise<unknown[]> {
  const r = await t.client.request('GET', path);
  assert.is(r.status, 200, show(r));
  const items = (r.json as any).items.filter((i: any) => i.metadata.annotations?.[ANNOTATION] !== undefined && !i.metadata.name.startsWith('wtst-'));
  // generation counts the spec changes of earlier runs against the same cluster (whose managers,
  // not the APF controllers, are left out); managedFields are in time order first (whole seconds),
  // so the entries of one object written in two seconds swap.
  const byManager = (a: any, b: any) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0);
  const apf = (m: any) => m.manager.startsWith('api-priority-and-fairness-config-');
  return items.map((i: any) => normalize({ ...i, metadata: { ...i.metadata, generation: '<generation>', managedFields: (i.metadata.managedFields ?? []).filter(apf).sort(byManager) } }));
}

/** Everything the configuration is, once the controller has written the Dangling conditions. */
async function configuration(): Promise<{ flowSchemas: unknown[]; priorityLevels: unknown[] }> {
  const flowSchemas = await until(() => bootstrapObjects(FS), (l) => l.length === 13 && l.every((f: any) => f.status?.conditions?.length === 1), 20_000);
  return { flowSchemas, priorityLevels: await bootstrapObjects(PL) };
}

if (process.env.UPDATE_GOLDEN) {
  test('UPDATE_GOLDEN: write the golden file from the reference', async () => {
    assert.ok(t.reference, 'the golden file is written from the reference only');
    writeFileSync(GOLDEN, JSON.stringify(await configuration(), null, 1) + '\n');
  });
}

test('the mandatory and suggested objects are kube\'s (spec, annotation, Dangling status, managedFields)', async () => {
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8'));
  const got = await configuration();
  assert.is(got.priorityLevels.length, 8);
  for (const [i, want] of golden.priorityLevels.entries()) assert.equal(got.priorityLevels[i], want, (want as any).metadata.name);
  for (const [i, want] of golden.flowSchemas.entries()) assert.equal(got.flowSchemas[i], want, (want as any).metadata.name);
});

test('kept: deleted objects come back, auto-updated specs are restored, "false" is left alone, stray annotated objects go', async () => {
  const merge = (path: string, b: unknown) => t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });
  const run = t.ns('x').slice(2);
  const stray = `wtst-stray-${run}`;
  // A: a suggested and a mandatory object deleted.
  assert.is((await t.client.request('DELETE', `${FS}/kube-scheduler`)).status, 200);
  assert.is((await t.client.request('DELETE', `${PL}/exempt`)).status, 200);
  // B: a suggested spec changed, auto-update off.
  const b = await merge(`${FS}/kube-controller-manager`, { metadata: { annotations: { [ANNOTATION]: 'false' } }, spec: { matchingPrecedence: 850 } });
  assert.is(b.status, 200, show(b));
  // C: a suggested spec changed, auto-update on.
  const generation = ((await t.client.request('GET', `${PL}/workload-low`)).json as any).metadata.generation;
  const c = await merge(`${PL}/workload-low`, { spec: { limited: { assuredConcurrencyShares: 99 } } });
  assert.is(c.status, 200, show(c));
  // D: an annotated object that is no bootstrap object.
  const d = await t.client.request('POST', FS, {
    body: { apiVersion: `${GROUP}/v1beta2`, kind: 'FlowSchema', metadata: { name: stray, annotations: { [ANNOTATION]: 'true' } }, spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 9500, rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/nothing'] }] }] } },
  });
  assert.is(d.status, 201, show(d));
  const get = async (path: string) => (await t.client.request('GET', path)).json as any;
  const restored = async () => {
    const [scheduler, exempt, low, stray_] = await Promise.all([get(`${FS}/kube-scheduler`), get(`${PL}/exempt`), get(`${PL}/workload-low`), get(`${FS}/${stray}`)]);
    return { scheduler, exempt, low, stray: stray_ };
  };
  const limit = t.reference ? 75_000 : 10_000;
  const r = await until(restored, (x) => x.scheduler.kind === 'FlowSchema' && x.exempt.kind === 'PriorityLevelConfiguration' && x.low.spec.limited.assuredConcurrencyShares === 100 && x.stray.kind === 'Status', limit);
  assert.is(r.scheduler.spec.matchingPrecedence, 800, JSON.stringify(r.scheduler));
  assert.is(r.scheduler.metadata.annotations[ANNOTATION], 'true');
  assert.equal(r.exempt.spec, { type: 'Exempt' });
  assert.is(r.low.spec.limited.assuredConcurrencyShares, 100);
  assert.is(r.low.metadata.generation, generation + 2);
  assert.is(r.stray.code, 404, JSON.stringify(r.stray));
  // B was left alone through the same passes.
  const kcm = await get(`${FS}/kube-controller-manager`);
  assert.is(kcm.spec.matchingPrecedence, 850);
  assert.is(kcm.metadata.annotations[ANNOTATION], 'false');
  // Deleted, it comes back as the producer writes it (and the cluster is as it was for the next run).
  assert.is((await t.client.request('DELETE', `${FS}/kube-controller-manager`)).status, 200);
  const back = await until(() => get(`${FS}/kube-controller-manager`), (x) => x.spec?.matchingPrecedence === 800, limit);
  assert.is(back.spec.matchingPrecedence, 800, JSON.stringify(back));
  assert.is(back.metadata.annotations[ANNOTATION], 'true');
});

test.run();
