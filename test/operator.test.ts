/**
 * A real operator (test/go/operator, sigs.k8s.io/controller-runtime v0.12.3 on client-go v0.24.17,
 * built through the Go module proxy into .cache/go, the binary kept in .cache/go/bin): it installs
 * its own CRD (widgets.demo.operator.test, a structural schema with defaults, the status
 * subresource) and waits for Established, then runs a manager with leader election on a coordination.k8s.io/v1
 * Lease. Driven here over HTTP: a Widget becomes a ConfigMap owned by it, with the Widget's
 * /status written, a finalizer added and an Event recorded; a hand edit of the ConfigMap is seen
 * through a metadata-only watch and undone; a spec update reaches the ConfigMap; deleting the Widget
 * runs the finalizer (the operator deletes the ConfigMap itself: the reference has no garbage
 * collector) and the Widget goes; a second instance does nothing while the first holds the Lease,
 * and takes over within a retry period once the first is stopped by SIGTERM (it releases the Lease).
 *
 * Runs against this server, or against any cluster with TEST_KUBECONFIG (test/target.ts):
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/operator.test.ts
 * A missing Go toolchain or module proxy fails the suite (never a silent skip).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { goEnv, goProgram } from './go-env.ts';
import { startTarget, type Target } from './target.ts';
import { eventually } from './harness.ts';
import { show } from './assertions.ts';

const PROGRAM = goProgram('operator');
const CRD = 'widgets.demo.operator.test';
const FINALIZER = 'demo.operator.test/configmap-cleanup';
const LEASE = 'widget-operator';
/** The operator's LeaseDuration and RetryPeriod. */
const LEASE_MS = 4000;
const RETRY_MS = 500;

/** One line the operator prints. */
interface OperatorEvent {
  event: 'established' | 'started' | 'leading' | 'finalizer-added' | 'reconciled' | 'finalized' | 'exited' | 'error';
  id: string;
  widget?: string;
  generation?: number;
  error?: string;
  /** Unix milliseconds when the program printed it. */
  at: number;
}

/** A running operator instance: its events so far, and a way to wait for one. */
class Operator {
  readonly events: OperatorEvent[] = [];
  private stderr = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor(
    readonly id: string,
    readonly proc: ChildProcess,
  ) {
    proc.stderr!.on('data', (b: Buffer) => (this.stderr = (this.stderr + b).slice(-8000)));
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      this.events.push(JSON.parse(l) as OperatorEvent);
      for (const w of this.waiters.splice(0)) w();
    });
    this.exited = new Promise((r) => proc.on('exit', (code) => r(code)));
  }

  count(pred: (e: OperatorEvent) => boolean): number {
    return this.events.filter(pred).length;
  }

  describe(): string {
    return `${this.id}: events ${JSON.stringify(this.events)}\nstderr ${this.stderr.slice(-3000)}`;
  }

  /** The first event matching `pred`, waiting up to `ms` for it. */
  async waitFor(what: string, pred: (e: OperatorEvent) => boolean, ms: number): Promise<OperatorEvent> {
    const deadline = Date.now() + ms;
    for (;;) {
      const e = this.events.find(pred);
      if (e) return e;
      const failed = this.events.find((x) => x.event === 'error');
      if (failed) assert.unreachable(`${this.id} failed before ${what}: ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) assert.unreachable(`${this.id}: no ${what} within ${ms} ms; ${this.describe()}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(timer), r()));
      });
    }
  }

  async kill(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    await this.exited;
  }
}

let t: Target;
let bin: string;
let ns: string;
const operators: Operator[] = [];
let a: Operator;
let b: Operator;
let firstHolder: string;

const widgets = (name = ''): string => `/apis/demo.operator.test/v1/namespaces/${ns}/widgets${name && '/' + name}`;
const configMap = (widget: string): string => `/api/v1/namespaces/${ns}/configmaps/${widget}-widget`;
const lease = (): string => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const reconciled = (widget: string, generation?: number) => (e: OperatorEvent) =>
  e.event === 'reconciled' && e.widget === widget && (generation === undefined || e.generation === generation);
const acts = (e: OperatorEvent) => e.event === 'reconciled' || e.event === 'finalized' || e.event === 'finalizer-added';

const get = async (p: string): Promise<any> => {
  const r = await t.client.request('GET', p);
  assert.is(r.status, 200, show(r));
  return r.json;
};
const start = (id: string): Operator => {
  const o = new Operator(id, spawn(bin, [t.kubeconfig, ns, id], { stdio: ['ignore', 'pipe', 'pipe'] }));
  operators.push(o);
  return o;
};
/** The Widget once its status is Ready for `generation`. */
const ready = async (name: string, generation: number): Promise<any> => {
  let w: any;
  await eventually(`${name} Ready at generation ${generation}`, async () => {
    w = await get(widgets(name));
    const cond = (w.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    return w.status?.observedGeneration === generation && cond?.status === 'True' && cond.observedGeneration === generation;
  }, 20_000, () => console.log(operators.map((o) => o.describe()).join('\n')));
  return w;
};
/** Create a Widget, wait until it is Ready and return it with its ConfigMap. */
const createWidget = async (name: string, spec: Record<string, unknown>): Promise<{ w: any; cm: any }> => {
  const r = await t.client.request('POST', widgets(), { body: { apiVersion: 'demo.operator.test/v1', kind: 'Widget', metadata: { name }, spec } });
  assert.is(r.status, 201, show(r));
  const w = await ready(name, 1);
  return { w, cm: await get(configMap(name)) };
};
/** Delete a Widget and wait until the finalizer ran and both it and its ConfigMap are gone. */
const deleteWidget = async (name: string): Promise<void> => {
  const r = await t.client.request('DELETE', widgets(name));
  assert.is(r.status, 200, show(r));
  await eventually(`${name} and its ConfigMap gone`, async () =>
    (await t.client.request('GET', widgets(name))).status === 404 && (await t.client.request('GET', configMap(name))).status === 404,
  20_000, () => console.log(operators.map((o) => o.describe()).join('\n')));
};

test.before(async () => {
  // Built into GOPATH/bin (.cache/go/bin): go build leaves an up-to-date binary as it is.
  const env = goEnv();
  bin = path.join(env.GOPATH!, 'bin', 'widget-operator');
  const began = Date.now();
  await promisify(execFile)('go', ['build', '-o', bin, '.'], { cwd: PROGRAM, env, timeout: 9 * 60 * 1000 });
  console.log(`go build ${Date.now() - began} ms`);
  t = await startTarget();
  ns = await t.createNamespace('operator');
});
test.after(async () => {
  for (const o of operators) await o.kill();
  await t.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('the operator installs its CRD (Established) and leads on a Lease; a second instance follows', async () => {
  a = start('operator-a');
  await a.waitFor('established', (e) => e.event === 'established', 60_000);
  const crd = await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`);
  const cond = (type: string) => crd.status.conditions.find((c: any) => c.type === type)?.status;
  assert.is(cond('NamesAccepted'), 'True');
  assert.is(cond('Established'), 'True');
  assert.equal(crd.status.acceptedNames.shortNames, ['wdg']);
  assert.equal(crd.status.storedVersions, ['v1']);
  await a.waitFor('leading', (e) => e.event === 'leading', 30_000);

  b = start('operator-b');
  await b.waitFor('started', (e) => e.event === 'started', 60_000);
  const l = await get(lease());
  assert.ok(l.spec.holderIdentity, JSON.stringify(l.spec));
  assert.is(l.spec.leaseDurationSeconds, LEASE_MS / 1000);
  firstHolder = l.spec.holderIdentity;
});

test('a Widget becomes a ConfigMap owned by it, with the schema defaults, a finalizer and /status', async () => {
  const { w, cm } = await createWidget('alpha', { message: 'hello' });
  assert.equal(w.spec, { message: 'hello', color: 'blue', size: 1 }, 'defaulted by the schema');
  assert.equal(w.metadata.finalizers, [FINALIZER]);
  assert.is(w.status.configMapName, 'alpha-widget');
  const [ready] = w.status.conditions;
  assert.is(w.status.conditions.length, 1);
  assert.equal({ ...ready, lastTransitionTime: typeof ready.lastTransitionTime }, {
    type: 'Ready', status: 'True', reason: 'ConfigMapSynced', observedGeneration: 1,
    message: 'ConfigMap alpha-widget holds the spec', lastTransitionTime: 'string',
  });
  assert.equal(cm.data, { message: 'hello', color: 'blue', size: '1' });
  assert.equal(cm.metadata.labels, { 'demo.operator.test/widget': 'alpha' });
  assert.equal(cm.metadata.ownerReferences, [
    { apiVersion: 'demo.operator.test/v1', kind: 'Widget', name: 'alpha', uid: w.metadata.uid, controller: true, blockOwnerDeletion: true },
  ]);

  // The Event the operator recorded about its Widget (a core/v1 Event with a custom involvedObject).
  let events: any[] = [];
  const sel = encodeURIComponent('involvedObject.kind=Widget,involvedObject.name=alpha,reason=ConfigMapSynced');
  await eventually('the ConfigMapSynced Event', async () => (events = (await get(`/api/v1/namespaces/${ns}/events?fieldSelector=${sel}`)).items).length > 0);
  const [ev] = events;
  assert.equal(
    { ...ev.involvedObject, resourceVersion: typeof ev.involvedObject.resourceVersion },
    { kind: 'Widget', namespace: ns, name: 'alpha', uid: w.metadata.uid, apiVersion: 'demo.operator.test/v1', resourceVersion: 'string' },
  );
  assert.equal([ev.type, ev.message, ev.source.component], ['Normal', 'ConfigMap alpha-widget created', 'widget-operator']);

  // The operator writes its status unconditionally: once settled, an unchanged status is a no-op
  // update (no new resourceVersion, no watch event), so reconciling stops.
  await sleep(1000);
  const settled = (await get(widgets('alpha'))).metadata.resourceVersion;
  const n = a.count(reconciled('alpha'));
  await sleep(2000);
  assert.is(a.count(reconciled('alpha')), n, `reconciles kept coming: ${a.describe()}`);
  assert.is((await get(widgets('alpha'))).metadata.resourceVersion, settled);
});

test('a hand edit of the ConfigMap is seen by the metadata-only watch and undone', async () => {
  const r = await t.client.request('PATCH', configMap('alpha'), { body: { data: { message: 'tampered' } }, contentType: 'application/merge-patch+json' });
  assert.is(r.status, 200, show(r));
  await eventually('the ConfigMap restored', async () => (await get(configMap('alpha'))).data.message === 'hello', 10_000);
  assert.equal((await get(configMap('alpha'))).data, { message: 'hello', color: 'blue', size: '1' });
});

test('a spec update reaches the ConfigMap and the status follows the generation; the schema refuses a bad size', async () => {
  const r = await t.client.request('PATCH', widgets('alpha'), { body: { spec: { message: 'bye', color: 'green', size: 3 } }, contentType: 'application/merge-patch+json' });
  assert.is(r.status, 200, show(r));
  assert.is(r.json.metadata.generation, 2);
  const w = await ready('alpha', 2);
  assert.equal(w.spec, { message: 'bye', color: 'green', size: 3 });
  assert.equal((await get(configMap('alpha'))).data, { message: 'bye', color: 'green', size: '3' });

  const bad = await t.client.request('PATCH', widgets('alpha'), { body: { spec: { size: 11 } }, contentType: 'application/merge-patch+json' });
  assert.is(bad.status, 422, show(bad));
  assert.is((await get(widgets('alpha'))).metadata.generation, 2);
});

test('deleting a Widget runs the finalizer: the operator deletes the ConfigMap, then the Widget goes', async () => {
  await deleteWidget('alpha');
  await a.waitFor('finalized alpha', (e) => e.event === 'finalized' && e.widget === 'alpha', 5000);
});

test('the follower never acted while the leader held the Lease; after SIGTERM it takes over and reconciles', async () => {
  assert.is(b.count(acts), 0, b.describe());
  assert.not.ok(b.events.some((e) => e.event === 'leading'), b.describe());

  const stoppedAt = Date.now();
  a.proc.kill('SIGTERM');
  assert.is(await a.exited, 0, a.describe());
  await a.waitFor('exited', (e) => e.event === 'exited', 1000);
  const took = await b.waitFor('leading after the leader stopped', (e) => e.event === 'leading', 15_000);
  const takeover = took.at - stoppedAt;
  console.log(`takeover ${takeover} ms after SIGTERM (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms)`);
  assert.ok(takeover < LEASE_MS, `took ${takeover} ms: the stopped leader did not release the Lease`);
  const l = await get(lease());
  assert.ok(l.spec.holderIdentity && l.spec.holderIdentity !== firstHolder, JSON.stringify(l.spec));
  assert.is(l.spec.leaseTransitions, 1, JSON.stringify(l.spec));

  const { cm } = await createWidget('beta', { message: 'from b', size: 2 });
  assert.equal(cm.data, { message: 'from b', color: 'blue', size: '2' });
  // Its stdout line may come after the status it wrote is visible.
  await b.waitFor('reconciled beta', reconciled('beta', 1), 5000);
  await deleteWidget('beta');
  await b.waitFor('finalized beta', (e) => e.event === 'finalized' && e.widget === 'beta', 5000);
  assert.is(a.count((e) => e.widget === 'beta'), 0, 'the stopped instance did nothing');

  b.proc.kill('SIGTERM');
  assert.is(await b.exited, 0, b.describe());
});

test.run();
