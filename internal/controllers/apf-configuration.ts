/**
 * API Priority and Fairness configuration objects, as kube-apiserver 1.24 keeps them:
 *
 * - the config-producer (post-start hook `priority-and-fairness-config-producer`,
 *   pkg/registry/flowcontrol/rest + ensurer): at start, then every minute, the suggested
 *   PriorityLevelConfigurations and FlowSchemas, then the mandatory ones, are created when missing;
 *   an existing one gets the bootstrap spec back when its spec auto-updates (always for the
 *   mandatory ones; for a suggested one when its `apf.kubernetes.io/autoupdate-spec` annotation
 *   parses true, or, without a parsable annotation, while its generation is 1) and the annotation
 *   is set to what was decided; objects that carry the annotation (true) but are no longer in the
 *   bootstrap configuration are deleted.
 * - the config-consumer (k8s.io/apiserver pkg/util/flowcontrol apf_controller.go): on every change
 *   of either kind, each FlowSchema's `Dangling` condition says whether its priority level exists
 *   (a strategic merge patch of /status, field manager api-priority-and-fairness-config-consumer-v1),
 *   and the request limiter is given the stored configuration.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { semanticEqual } from '../registry/flowcontrol/helpers.ts';
import {
  AUTO_UPDATE_ANNOTATION, FLOWCONTROL_GROUP, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
  bootstrapFlowSchema, bootstrapPriorityLevel,
} from '../flowcontrol/objects.ts';
import type { Controller } from './controller.ts';
import { getOrNull } from './namespace-reconciler.ts';
import { listAll } from './list-all.ts';
import { CoalescedRun } from './coalesced-run.ts';

export const PRODUCER_FIELD_MANAGER = 'api-priority-and-fairness-config-producer-v1';
export const CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';
/** How often the producer checks the configuration again (kube: every minute). */
export const DEFAULT_RESYNC_MS = 60_000;

/** strconv.ParseBool: the value, or undefined when it does not parse. */
export function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/**
 * The ensurer's ShouldUpdate: the object to write back over `current` (annotation and/or spec
 * restored from `bootstrap`), or null when it is as it should be.
 */
export function ensureUpdate(current: KubeObject, bootstrap: KubeObject, mandatory: boolean): KubeObject | null {
  const annotation = current.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
  const autoUpdate = mandatory || (parseBool(annotation) ?? current.metadata.generation === 1);
  const updateAnnotation = parseBool(annotation) !== autoUpdate;
  const specChanged = autoUpdate && !semanticEqual(bootstrap.spec, current.spec);
  if (!updateAnnotation && !specChanged) return null;
  const out = structuredClone(current);
  if (updateAnnotation) out.metadata.annotations = { ...(out.metadata.annotations ?? {}), [AUTO_UPDATE_ANNOTATION]: String(autoUpdate) };
  if (specChanged) out.spec = structuredClone(bootstrap.spec);
  return out;
}

/** The Dangling condition a FlowSchema should carry, given whether its priority level exists. */
export function danglingCondition(plName: string, exists: boolean): { type: string; status: string; reason: string; message: string } {
  return exists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} but there is no such object` };
}

/** What the consumer hands the request limiter: every stored object of both kinds. */
export type ConfigurationSink = (flowSchemas: KubeObject[], priorityLevels: KubeObject[]) => void;

const isAlreadyExists = (err: unknown): boolean => err instanceof ApiError && err.status.reason === 'AlreadyExists';
const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409;
const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;

/** The served v1beta2 kinds, or null when the group is off (--runtime-config). */
function servedKinds(registry: Registry): { fs: ServedKind; pl: ServedKind } | null {
  const fs = registry.lookup(FLOWCONTROL_GROUP, 'v1beta2', 'flowschemas');
  const pl = registry.lookup(FLOWCONTROL_GROUP, 'v1beta2', 'prioritylevelconfigurations');
  return fs && pl ? { fs, pl } : null;
}

async function listObjects(served: ServedKind): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for await (const b of listAll(served.reader, '')) out.push(parseObject(b));
  return out;
}

export class ApfConfigProducer implements Controller {
  private readonly ctx = systemContext(PRODUCER_FIELD_MANAGER);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  private constructor(private readonly kinds: { fs: ServedKind; pl: ServedKind }, private readonly log: Logger, private readonly resyncMs: number) {}

  static create(registry: Registry, log: Logger, resyncMs = DEFAULT_RESYNC_MS): ApfConfigProducer | null {
    const kinds = servedKinds(registry);
    return kinds ? new ApfConfigProducer(kinds, log, resyncMs) : null;
  }

  /** The first pass (retried every second until it succeeds, as kube's hook), then the resync loop. */
  async start(): Promise<void> {
    for (;;) {
      try {
        await this.ensure();
        break;
      } catch (err) {
        this.log.warn({ err }, 'APF bootstrap ensurer ran into error, will retry later');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    this.timer = setInterval(() => {
      this.running = this.ensure().catch((err: unknown) => this.log.warn({ err }, 'APF bootstrap ensurer ran into error, will retry later'));
    }, this.resyncMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  idle(): Promise<void> {
    return this.running;
  }

  /**
   * One pass: suggested, then mandatory, then the removal of objects no longer bootstrapped. The
   * objects of a step are independent: written concurrently (one group commit at first start).
   */
  async ensure(): Promise<void> {
    const { fs, pl } = this.kinds;
    const all = (names: string[], served: ServedKind, of: (n: string) => KubeObject, mandatory: boolean) => Promise.all(names.map((n) => this.ensureOne(served, of(n), mandatory)));
    await all(SUGGESTED_PRIORITY_LEVELS, pl, bootstrapPriorityLevel, false);
    await all(SUGGESTED_FLOW_SCHEMAS, fs, bootstrapFlowSchema, false);
    await all(MANDATORY_FLOW_SCHEMAS, fs, bootstrapFlowSchema, true);
    await all(MANDATORY_PRIORITY_LEVELS, pl, bootstrapPriorityLevel, true);
    await this.removeDangling(fs, [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]);
    await this.removeDangling(pl, [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
  }

  private async ensureOne(served: ServedKind, bootstrap: KubeObject, mandatory: boolean): Promise<void> {
    const name = bootstrap.metadata.name!;
    let current: KubeObject | null;
    for (;;) {
      current = await getOrNull(served, '', name);
      if (current) break;
      try {
        await served.store.create(this.ctx, '', structuredClone(bootstrap));
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    const update = ensureUpdate(current, bootstrap, mandatory);
    if (!update) return;
    try {
      await served.store.update(this.ctx, '', name, update);
      this.log.info({ kind: served.kind.kind, name, mandatory }, 'APF bootstrap configuration restored');
    } catch (err) {
      // Something updated it concurrently: checked again at the next pass.
      if (!isConflict(err)) throw err;
    }
  }

  /** removeAutoUpdateEnabledConfiguration of every annotated object not in the bootstrap set. */
  private async removeDangling(served: ServedKind, bootstrapNames: string[]): Promise<void> {
    for (const o of await listObjects(served)) {
      const name = o.metadata.name ?? '';
      const annotation = o.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
      if (annotation === undefined || bootstrapNames.includes(name) || parseBool(annotation) !== true) continue;
      try {
        await served.store.delete(this.ctx, '', name, {});
        this.log.info({ kind: served.kind.kind, name }, 'APF bootstrap configuration no longer bootstrapped: deleted');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}

export class ApfConfigConsumer implements Controller {
  private readonly ctx = systemContext(CONSUMER_FIELD_MANAGER);
  private unsubscribe: (() => void) | null = null;
  private readonly runs = new CoalescedRun(() => this.digest(), (err) => this.log.warn({ err }, 'APF configuration: digest failed'), () => this.unsubscribe !== null);

  private constructor(
    private readonly storage: Storage,
    private readonly kinds: { fs: ServedKind; pl: ServedKind },
    private readonly log: Logger,
    private readonly sink: ConfigurationSink | undefined,
    private readonly followOnly: boolean,
  ) {}

  /**
   * `followOnly` (a `--workers` serving thread): the limiter follows the stored objects, the
   * leader's consumer alone writes their status; start() resolves once the first digest is in.
   */
  static create(storage: Storage, registry: Registry, log: Logger, sink?: ConfigurationSink, opts: { followOnly?: boolean } = {}): ApfConfigConsumer | null {
    const kinds = servedKinds(registry);
    return kinds ? new ApfConfigConsumer(storage, kinds, log, sink, opts.followOnly ?? false) : null;
  }

  start(): void | Promise<void> {
    this.unsubscribe = this.storage.onChange((changes) => {
      if (changes.some((c) => c.key.group === FLOWCONTROL_GROUP)) this.runs.schedule();
    });
    this.runs.schedule();
    if (this.followOnly) return this.runs.idle();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  idle(): Promise<void> {
    return this.runs.idle();
  }

  /** digestConfigObjects: Dangling conditions, then the limiter's configuration. */
  private async digest(): Promise<void> {
    const levels = await listObjects(this.kinds.pl);
    const schemas = await listObjects(this.kinds.fs);
    const names = new Set(levels.map((l) => l.metadata.name));
    this.sink?.(schemas, levels);
    if (this.followOnly) return;
    for (const fs of schemas) {
      const plName = String((fs.spec as { priorityLevelConfiguration?: { name?: unknown } } | undefined)?.priorityLevelConfiguration?.name ?? '');
      const want = danglingCondition(plName, names.has(plName));
      const conditions = ((fs.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? []);
      const have = conditions.find((c) => c.type === 'Dangling');
      if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) continue;
      const condition = { type: want.type, status: want.status, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), reason: want.reason, message: want.message };
      try {
        await this.kinds.fs.store.patch(this.ctx, '', fs.metadata.name!, 'strategic', Buffer.from(JSON.stringify({ status: { conditions: [condition] } })), 'status');
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    }
  }
}
