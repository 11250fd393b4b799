/**
 * apiextensions-apiserver's own controllers for CustomResourceDefinitions (kube-apiserver runs
 * them in its `start-apiextensions-controllers` post-start hook, so `--controllers` does not turn
 * them off), after apiextensions-apiserver 1.24.17 pkg/controller:
 *   - naming (status/naming_controller.go): status.acceptedNames and the NamesAccepted condition,
 *     names already accepted by another CRD of the group refused with kube's reasons and messages;
 *     Established False (NotAccepted / Installing) until established;
 *   - establishing (establish/establishing_controller.go): Established True once the names are accepted;
 *   - finalizing (finalizer/crd_finalizer.go): a CRD being deleted loses its custom resources
 *     (every namespace), then the `customresourcecleanup.apiextensions.k8s.io` finalizer, with
 *     the Terminating condition's steps.
 * And the serving side (kube's crdHandler): a CRD that is Established has its custom resource
 * kind in the registry (`customResourceKinds(crd)`), from the moment its event is folded (the
 * change listener runs in the fold's commit step, so every replica serves it from the same
 * offset on); the kind leaves the registry when the CRD leaves storage.
 *
 * Every status write is an update of `/status` carrying the resourceVersion it was computed from;
 * a 409 or 404 re-queues the CRD for a fresh look, so replicas acting at once converge.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject, rfc3339 } from '../registry/generic/serialize.ts';
import { CRD_CLEANUP_FINALIZER, CRD_GROUP, type CRDCondition, conditionOf, established, setCondition } from '../registry/apiextensions/crd.ts';
import { customResourceKinds, type CustomResourceDefinition } from '../registry/apiextensions/custom-resource.ts';
import type { ConversionWebhookCall } from '../registry/apiextensions/conversion.ts';
import { conversionWebhookCaller } from './conversion-webhook.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import { semanticEqual } from '../gocompat/equal.ts';
import { isObj } from '../gocompat/json.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';

const CRDS = 'customresourcedefinitions';
/** kube's crdHandler answer to a create while the CRD is Terminating (405 MethodNotAllowed). */
const TERMINATING_CREATE = 'create not allowed while custom resource definition is terminating';

interface Task {
  key: string;
}

interface Names {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

/** Custom resources still there after a delete pass (finalizers pending): retried with backoff, not logged. */
class InstancesRemain extends Error {}

const errCode = (e: unknown): number | undefined => (e instanceof ApiError ? e.code : undefined);
const namesOf = (v: unknown): Names => (isObj(v) ? (v as Names) : {});
const specOf = (crd: KubeObject): Record<string, unknown> => (isObj(crd.spec) ? crd.spec : {});
const statusOf = (crd: KubeObject): Record<string, unknown> => (isObj(crd.status) ? crd.status : {});

/** equalToAcceptedOrFresh: a name is free when it is the one already accepted, or no other CRD of the group holds it. */
function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested ?? '')) return undefined;
  return `${JSON.stringify(requested ?? '')} is already in use`;
}

/**
 * calculateNamesAndConditions: the names this CRD may have (given the names other CRDs of its
 * group accepted) and its NamesAccepted and Established conditions.
 */
export function acceptNames(crd: KubeObject, others: readonly KubeObject[]): { names: Names; namesAccepted: CRDCondition; established: CRDCondition } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    if (o.metadata.name === crd.metadata.name || specOf(o).group !== specOf(crd).group) continue;
    const a = namesOf(statusOf(o).acceptedNames);
    for (const n of [a.plural, a.singular, ...(a.shortNames ?? [])]) resources.add(n ?? '');
    kinds.add(a.kind ?? '');
    kinds.add(a.listKind ?? '');
  }
  const requested = namesOf(specOf(crd).names);
  const accepted = namesOf(statusOf(crd).acceptedNames);
  const names: Names = { ...accepted };
  let refused: { reason: string; message: string } | undefined;
  const take = (field: 'plural' | 'singular' | 'kind' | 'listKind', reason: string, used: Set<string>): void => {
    const message = conflict(requested[field], accepted[field], used);
    if (message) refused = { reason, message };
    else names[field] = requested[field];
  };
  take('plural', 'PluralConflict', resources);
  take('singular', 'SingularConflict', resources);
  if (!semanticEqual(requested.shortNames, accepted.shortNames)) {
    const have = new Set(accepted.shortNames ?? []);
    const errs = (requested.shortNames ?? []).filter((s) => !have.has(s)).map((s) => conflict(s, '', resources)).filter((m): m is string => !!m);
    // utilerrors.NewAggregate's text: one alone, several as [a, b].
    if (errs.length) refused = { reason: 'ShortNamesConflict', message: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` };
    else names.shortNames = requested.shortNames;
  }
  take('kind', 'KindConflict', kinds);
  take('listKind', 'ListKindConflict', kinds);
  names.categories = requested.categories;
  const namesAccepted: CRDCondition = refused ? { type: 'NamesAccepted', status: 'False', ...refused } : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  const old = conditionOf(crd, 'Established');
  let est: CRDCondition = old
    ? { type: 'Established', status: old.status as CRDCondition['status'], reason: String(old.reason ?? ''), message: String(old.message ?? '') }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (est.status !== 'True' && namesAccepted.status === 'True') est = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  return { names: dropUndefined(names), namesAccepted, established: est };
}

const dropUndefined = (n: Names): Names => Object.fromEntries(Object.entries(n).filter(([, v]) => v !== undefined)) as Names;

/**
 * The registry identity of a served custom kind: a change of any of these re-adds it — the CRD's
 * whole spec included (schemas, defaults, conversion: kube rebuilds a CRD's serving info on every
 * spec change, so objects read afterwards are defaulted with the new schema).
 */
const identity = (d: KindDescriptor, crd: KubeObject): string => JSON.stringify([d.group, d.versions, d.resource, d.singular, d.kind, d.listKind, d.namespaced, d.shortNames, d.categories, specOf(crd)]);

export class CRDController extends QueueController<Task> {
  private readonly ctx = systemContext('apiextensions-apiserver');
  /** CRD name → the custom kind it serves (and its identity). */
  private readonly serving = new Map<string, { served: ServedKind; id: string }>();
  /** CRD name → group, to requeue a group's CRDs when one of them goes. */
  private readonly groups = new Map<string, string>();
  /** CRDs whose Terminating condition is True as last folded: their kinds refuse creates. */
  private readonly terminating = new Set<string>();
  /** The HTTPS calls of the served kinds' conversion webhooks. */
  private readonly conversionWebhook: ConversionWebhookCall;

  constructor(
    storage: Storage,
    private readonly registry: Registry,
    log: Logger,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
    /** A serving thread (app/workers.ts): serve the kinds, write nothing (the leader's controller does). */
    private readonly mode: { serveOnly?: boolean } = {},
  ) {
    super(
      'crd',
      storage,
      log,
      (t) => this.process(t.key),
      (t, err) => {
        if (errCode(err) !== 409 && !(err instanceof InstancesRemain)) log.warn({ err, crd: t.key }, 'CustomResourceDefinition step failed; retrying');
      },
      queueOptions,
    );
    this.conversionWebhook = conversionWebhookCaller(registry);
  }

  private get crds(): ServedKind | undefined {
    return this.registry.lookup(CRD_GROUP, 'v1', CRDS);
  }

  /** Subscribe, then serve the stored Established CRDs' kinds before the server listens. */
  override async start(): Promise<void> {
    if (!this.crds) return;
    super.start();
    await this.synced();
  }

  override stop(): void {
    super.stop();
    for (const name of [...this.serving.keys()]) this.unserve(name);
  }

  private enqueue(name: string): void {
    if (!this.mode.serveOnly) this.queue.add({ key: name });
  }

  protected observe(c: Change): void {
    if (c.key.group !== CRD_GROUP || c.key.resource !== CRDS) return;
    const name = c.key.name;
    if (c.type === 'DELETED') {
      this.terminating.delete(name);
      this.unserve(name);
      const group = this.groups.get(name);
      this.groups.delete(name);
      // The naming controller requeues the group's other CRDs: a name it held may now be free.
      for (const [other, g] of this.groups) if (g === group) this.enqueue(other);
      return;
    }
    this.seen(parseObject(c.object));
  }

  /** A stored CRD (a change or the start-up scan): note its group, serve its kind if Established, check it. */
  private seen(crd: KubeObject): void {
    const name = crd.metadata.name ?? '';
    this.groups.set(name, String(specOf(crd).group ?? ''));
    this.serve(crd);
    this.enqueue(name);
  }

  protected scan(): Promise<void> {
    return this.scanUntilDone('CustomResourceDefinition start-up scan', async () => {
      const crds = this.crds;
      if (!crds) return;
      for await (const b of listAll(crds.reader, '', {}, () => this.stopped)) this.seen(parseObject(b));
    });
  }

  /**
   * Serve the custom kind of an Established CRD (synchronously: called in the fold's commit step).
   * While the CRD's Terminating condition is True, creates of its kind are refused (kube's
   * crdHandler); reads, updates and deletes go on.
   */
  private serve(crd: KubeObject): void {
    const name = crd.metadata.name ?? '';
    if (conditionOf(crd, 'Terminating')?.status === 'True') this.terminating.add(name);
    else this.terminating.delete(name);
    const kind = established(crd) ? customResourceKinds(crd as unknown as CustomResourceDefinition, { conversionWebhook: this.conversionWebhook })[0] : undefined;
    const want = kind && { ...kind, refuseCreate: () => (this.terminating.has(name) ? TERMINATING_CREATE : undefined) };
    const have = this.serving.get(name);
    if (have && want && have.id === identity(want, crd)) return;
    if (have && !want) return; // kube keeps serving a CRD's kind until the CRD is gone
    if (have) this.unserve(name);
    if (!want) return;
    try {
      const served = this.registry.add(want);
      if (served) this.serving.set(name, { served, id: identity(want, crd) });
    } catch (err) {
      this.log.warn({ err, crd: name }, 'custom resource kind not served: its path is taken');
    }
  }

  private unserve(name: string): void {
    const have = this.serving.get(name);
    if (!have) return;
    this.serving.delete(name);
    const k = have.served.kind;
    this.registry.remove(k.group, k.versions[0]!, k.resource);
  }

  private async process(name: string): Promise<void> {
    await this.storage.latest();
    const crds = this.crds;
    if (!crds) return;
    let crd: KubeObject;
    try {
      crd = parseObject(await crds.store.getLatest('', name));
    } catch (e) {
      if (errCode(e) === 404) return;
      throw e;
    }
    if (crd.metadata.deletionTimestamp) return this.finalize(crds, crd);
    if (!semanticEqual(namesOf(specOf(crd).names), namesOf(statusOf(crd).acceptedNames))) {
      const others: KubeObject[] = [];
      for await (const b of listAll(crds.reader, '')) others.push(parseObject(b));
      const { names, namesAccepted, established: est } = acceptNames(crd, others);
      if (!semanticEqual(names, namesOf(statusOf(crd).acceptedNames)) || !sameCondition(namesAccepted, conditionOf(crd, 'NamesAccepted'))) {
        const next = structuredClone(crd);
        const now = rfc3339(new Date());
        next.status = { ...statusOf(next), acceptedNames: names };
        setCondition(next, namesAccepted, now);
        setCondition(next, est, now);
        crd = await this.updateStatus(crds, next);
        for (const [other, g] of this.groups) if (g === specOf(crd).group && other !== name) this.enqueue(other);
      }
    }
    // The establishing controller: names accepted, not yet Established.
    if (conditionOf(crd, 'NamesAccepted')?.status === 'True' && !established(crd)) {
      const next = structuredClone(crd);
      setCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, rfc3339(new Date()));
      await this.updateStatus(crds, next);
    }
  }

  /** The CRD finalizer: delete every custom resource, then drop the cleanup finalizer. */
  private async finalize(crds: ServedKind, crd: KubeObject): Promise<void> {
    if (!(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return;
    const name = crd.metadata.name ?? '';
    let next = structuredClone(crd);
    setCondition(next, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, rfc3339(new Date()));
    next = structuredClone(await this.updateStatus(crds, next));
    const served = this.serving.get(name)?.served;
    if (established(next) && served) {
      await this.deleteInstances(served);
      setCondition(next, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, rfc3339(new Date()));
    } else {
      setCondition(next, { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' }, rfc3339(new Date()));
    }
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    await this.updateStatus(crds, next);
  }

  /** Delete every object of the kind (each namespace), then check none is left (else retry). */
  private async deleteInstances(served: ServedKind): Promise<void> {
    for await (const b of listAll(served.reader, '')) {
      const o = parseObject(b);
      try {
        await served.store.delete(this.ctx, o.metadata.namespace ?? '', o.metadata.name ?? '', {});
      } catch (e) {
        if (errCode(e) !== 404) throw e;
      }
    }
    await this.storage.latest();
    const left = await served.reader.list('', { limit: 1 });
    if (left.items.length) throw new InstancesRemain(`${served.kind.resource}.${served.kind.group} waiting for instances to be removed`);
  }

  /** UpdateStatus at the resourceVersion read; answers the object as stored. */
  private async updateStatus(crds: ServedKind, next: KubeObject): Promise<KubeObject> {
    const r = await crds.store.update(this.ctx, '', next.metadata.name ?? '', next, 'status');
    return parseObject(r.body);
  }
}

/** IsCRDConditionEquivalent: same type, status, reason and message. */
function sameCondition(a: CRDCondition, b: Record<string, unknown> | undefined): boolean {
  return !!b && a.type === b.type && a.status === b.status && a.reason === b.reason && a.message === b.message;
}
