/**
 * API Priority and Fairness (kube-apiserver 1.24's default request limiter,
 * k8s.io/apiserver pkg/util/flowcontrol): classify each request into a FlowSchema and its priority
 * level, then let it run, queue or be rejected by that level's queue set. The server's concurrency
 * limit (--max-requests-inflight + --max-mutating-requests-inflight, 600 by default) is shared out
 * among the limited levels by their assured concurrency shares, rounded up: global-default
 * 600 × 20 / 245 → 49 seats, workload-low 245, catch-all 13. The exempt level (system:masters, and
 * the probes on /healthz, /readyz, /livez) is never limited.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../api/types.ts';
import { FLOW_SCHEMAS, PRIORITY_LEVELS, type FlowSchemaSpec, type PriorityLevelSpec } from './bootstrap.ts';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, flowSchemaFromObject, priorityLevelFromObject } from './objects.ts';
import { matchesFlowSchema, type RequestDigest } from './match.ts';
import { QueueSet, type FlowControlObserver, type QueuedRequest, type RequestDescription, type WorkEstimate } from './queue-set.ts';
import { Dealer, hashFlowId } from './shuffle-sharding.ts';
import { tabwrite } from './tabwriter.ts';

export interface FlowControlOptions {
  /** The server's concurrency limit: --max-requests-inflight + --max-mutating-requests-inflight. */
  serverConcurrencyLimit: number;
  /** How long a request may wait in a queue (kube: --request-timeout / 4, 15 s). */
  requestWaitLimitMs: number;
  observer?: FlowControlObserver;
  /**
   * `--workers N`: this thread's part of a process-wide limit (each serving thread dispatches its
   * own requests). A level's seats and each queue's length limit are computed for the whole server,
   * as kube does, then shared out; request_concurrency_limit still reports the server's figure.
   * Absent: the whole limit (one thread).
   */
  threadShare?: (limit: number) => number;
  /** Clock in ms (tests). */
  now?: () => number;
}

/** The FlowSchema and priority level a request was classified into, with the uids kube reports. */
export interface Classification {
  flowSchema: string;
  flowSchemaUid: string;
  priorityLevel: string;
  priorityLevelUid: string;
}

/**
 * A request's way through the limiter. `admitted` settles true when it may run (at once for exempt
 * requests and free seats), false when it is rejected (429); a waiting request leaves its queue on
 * `cancel()`. After it ran, `finish()` releases its seats (exactly once; later calls are ignored).
 */
export interface Ticket {
  readonly classification: Classification;
  readonly admitted: Promise<boolean>;
  /** Set synchronously when known at once (the common, unqueued case). */
  readonly immediate: boolean | null;
  cancel(): void;
  finish(): void;
}

interface Level {
  spec: PriorityLevelSpec;
  uid: string;
  /** Absent for the exempt level. */
  queues: QueueSet | null;
}

const NOOP_OBSERVER: FlowControlObserver = {
  concurrencyLimit() {}, rejected() {}, dispatched() {}, inQueue() {}, executing() {}, seatsInUse() {}, queueLengthAfterEnqueue() {},
  waitDuration() {}, executionDuration() {}, estimatedSeats() {}, currentR() {}, dispatchR() {},
};

export class FlowController {
  private levels = new Map<string, Level>();
  private schemas: { spec: FlowSchemaSpec; uid: string }[] = [];
  private readonly observer: FlowControlObserver;
  private readonly now: () => number;
  private holding = false;
  private readonly share: (limit: number) => number;

  /** Until `configure` is called: the bootstrap configuration, with this process's uids. */
  constructor(private readonly opts: FlowControlOptions) {
    this.observer = opts.observer ?? NOOP_OBSERVER;
    this.now = opts.now ?? (() => performance.now());
    this.share = opts.threadShare ?? ((limit) => limit);
    this.apply(FLOW_SCHEMAS.map((spec) => ({ spec, uid: randomUUID() })), PRIORITY_LEVELS.map((spec) => ({ spec, uid: randomUUID() })));
  }

  /**
   * The stored configuration (kube's digestConfigObjects): every FlowSchema whose priority level
   * exists, in matching order; a missing mandatory object (exempt, catch-all) is imagined from the
   * bootstrap one. A level whose spec is unchanged keeps its queues (its concurrency limit follows
   * the new share sum); a changed or removed one is replaced, and the requests already in its
   * queues are still dispatched by it as its running ones finish (kube's quiescing).
   */
  configure(flowSchemas: readonly KubeObject[], priorityLevels: readonly KubeObject[]): void {
    const levels = priorityLevels.map((o) => ({ spec: priorityLevelFromObject(o), uid: o.metadata.uid ?? randomUUID() }));
    for (const name of MANDATORY_PRIORITY_LEVELS) {
      if (!levels.some((l) => l.spec.name === name)) levels.push({ spec: PRIORITY_LEVELS.find((p) => p.name === name)!, uid: randomUUID() });
    }
    const schemas = flowSchemas.map((o) => ({ spec: flowSchemaFromObject(o), uid: o.metadata.uid ?? randomUUID() })).filter((s) => levels.some((l) => l.spec.name === s.spec.priorityLevel));
    for (const name of MANDATORY_FLOW_SCHEMAS) {
      if (!schemas.some((s) => s.spec.name === name)) schemas.push({ spec: FLOW_SCHEMAS.find((f) => f.name === name)!, uid: randomUUID() });
    }
    schemas.sort((a, b) => a.spec.matchingPrecedence - b.spec.matchingPrecedence || (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0));
    this.apply(schemas, levels);
  }

  private apply(schemas: { spec: FlowSchemaSpec; uid: string }[], levels: { spec: PriorityLevelSpec; uid: string }[]): void {
    const shareSum = levels.reduce((s, l) => s + (l.spec.type === 'Limited' ? (l.spec.assuredConcurrencyShares ?? 0) : 0), 0);
    const next = new Map<string, Level>();
    for (const { spec, uid } of levels) {
      let queues: QueueSet | null = null;
      if (spec.type === 'Limited') {
        const serverLimit = Math.ceil((this.opts.serverConcurrencyLimit * spec.assuredConcurrencyShares!) / shareSum);
        const limit = this.share(serverLimit);
        const old = this.levels.get(spec.name);
        if (old?.queues && JSON.stringify(old.spec) === JSON.stringify(spec)) {
          queues = old.queues;
          const grew = limit > queues.config.concurrencyLimit;
          queues.config.concurrencyLimit = limit;
          if (grew) queues.dispatchAsMuchAsPossible();
        } else {
          const q = spec.queuing;
          queues = new QueueSet(
            { name: spec.name, queues: q?.queues ?? 0, handSize: q?.handSize ?? 0, queueLengthLimit: this.share(q?.queueLengthLimit ?? 0), requestWaitLimitMs: this.opts.requestWaitLimitMs, concurrencyLimit: limit },
            q ? new Dealer(q.queues, q.handSize) : null,
            this.observer,
            this.now,
            () => this.holding,
          );
        }
        this.observer.concurrencyLimit(spec.name, serverLimit);
      }
      next.set(spec.name, { spec, uid, queues });
    }
    this.levels = next;
    this.schemas = schemas;
  }

  /**
   * Hold (true) or resume (false) the start of limited requests. Not kube's: a Node server does
   * TLS handshakes and requests on one thread, and a burst of connections (2,000 clients at once)
   * was starved by the requests of those already connected until Go's 10 s handshake timeout hit
   * (measured: ~1,500 of 2,000 first handshakes). While held, limited requests wait in their queues
   * and one arriving at a full queue gets its 429 at once, so the handshakes get the CPU and every
   * client gets an answer; exempt requests still run.
   */
  holdDispatch(hold: boolean): void {
    if (this.holding === hold) return;
    this.holding = hold;
    if (!hold) for (const l of this.levels.values()) l.queues?.dispatchAsMuchAsPossible();
  }

  /** The concurrency limit of each limited level (request_concurrency_limit). */
  concurrencyLimits(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [name, l] of this.levels) if (l.queues) out.set(name, l.queues.config.concurrencyLimit);
    return out;
  }

  /** The first FlowSchema in matching order that matches (catch-all when none does). */
  classify(d: RequestDigest): { schema: FlowSchemaSpec; schemaUid: string; level: Level } {
    const found = this.schemas.find((s) => matchesFlowSchema(d, s.spec)) ?? this.schemas.find((s) => s.spec.name === 'catch-all')!;
    return { schema: found.spec, schemaUid: found.uid, level: this.levels.get(found.spec.priorityLevel)! };
  }

  /**
   * A request arrives: classify it, then run it, queue it or reject it. `estimate` gives its seats
   * once its level is known (kube's work estimator); `watch` marks a watch, which holds its seat only
   * while it starts.
   */
  begin(d: RequestDigest, estimate: (flowSchema: string, priorityLevel: string) => WorkEstimate, watch: boolean): Ticket {
    const { schema, schemaUid, level } = this.classify(d);
    const classification: Classification = { flowSchema: schema.name, flowSchemaUid: schemaUid, priorityLevel: level.spec.name, priorityLevelUid: level.uid };
    const pl = level.spec.name;
    const fs = schema.name;
    if (!level.queues) {
      this.observer.dispatched(pl, fs);
      const started = this.now();
      let done = false;
      return {
        classification, admitted: Promise.resolve(true), immediate: true, cancel() {},
        finish: () => {
          if (done) return;
          done = true;
          this.observer.executionDuration(pl, fs, watch, (this.now() - started) / 1000);
        },
      };
    }
    const queues = level.queues;
    let distinguisher = '';
    let hash = 0n;
    if (queues.config.queues > 1) {
      distinguisher = schema.distinguisherMethod === 'ByUser' ? d.user.username : schema.distinguisherMethod === 'ByNamespace' ? d.namespace : '';
      hash = hashFlowId(fs, distinguisher);
    }
    const work = estimate(fs, pl);
    this.observer.estimatedSeats(pl, fs, Math.max(work.initialSeats, work.finalSeats));
    const arrived = this.now();
    const started = queues.start(fs, distinguisher, hash, work, describe(d));
    if ('rejected' in started) return { classification, admitted: Promise.resolve(false), immediate: false, cancel() {}, finish() {} };
    const req = started.request;
    let executed = false;
    let startedAt = 0;
    const onDecision = (dec: string): boolean => {
      // kube observes the wait of every limited request, dispatched at once or not.
      this.observer.waitDuration(pl, fs, dec === 'execute', (this.now() - arrived) / 1000);
      if (dec !== 'execute') return false;
      this.observer.dispatched(pl, fs);
      executed = true;
      startedAt = this.now();
      return true;
    };
    const immediate = req.decision === 'execute' ? onDecision('execute') : null;
    return {
      classification,
      admitted: immediate !== null ? Promise.resolve(immediate) : req.decided.then(onDecision),
      immediate,
      cancel: () => req.cancel(),
      finish: () => {
        if (!executed) return;
        executed = false;
        this.observer.executionDuration(pl, fs, watch, (this.now() - startedAt) / 1000);
        req.finish();
      },
    };
  }

  /**
   * `--workers N`: every serving thread's snapshot (this one's included), for the debug dumps to
   * show the server's queues as one; absent, this thread's alone.
   */
  everyThread: (() => Promise<FlowSnapshot[]>) | null = null;

  /** This thread's levels, queues and waiting requests, cloneable (a debug dump's data). */
  snapshot(): FlowSnapshot {
    const wallOffset = Date.now() - this.now();
    const levels: LevelSnapshot[] = [];
    for (const [name, l] of this.levels) {
      const q = l.queues;
      if (!q) {
        levels.push({ name, queues: null });
        continue;
      }
      levels.push({
        name,
        idle: q.idle,
        waiting: q.totalWaiting,
        executing: q.totalExecuting,
        queues: q.queues.map((x) => ({
          pending: x.requests.length, executing: x.requestsExecuting, seatsInUse: x.seatsInUse, nextDispatchR: x.nextDispatchR,
          initialSeatsSum: x.initialSeatsSum, maxSeatsSum: x.maxSeatsSum, totalWorkSum: x.totalWorkSum,
          requests: x.requests.map((r: QueuedRequest) => ({ fsName: r.fsName, flowDistinguisher: r.flowDistinguisher, arrivalWallMs: wallOffset + r.arrivalMs, initialSeats: r.work.initialSeats, finalSeats: r.work.finalSeats, additionalLatencyMs: r.work.additionalLatencyMs, description: r.description })),
        })),
      });
    }
    return { levels };
  }

  /** A debug dump of every thread (everyThread) or this one. */
  async dump(kind: 'priority_levels' | 'queues' | 'requests', includeDetails = false): Promise<string> {
    const all = this.everyThread ? await this.everyThread() : [this.snapshot()];
    return kind === 'priority_levels' ? dumpPriorityLevels(all) : kind === 'queues' ? dumpQueues(all) : dumpRequests(all, includeDetails);
  }

  /** /debug/api_priority_and_fairness/dump_priority_levels of this thread. */
  dumpPriorityLevels(): string {
    return dumpPriorityLevels([this.snapshot()]);
  }

  /** /debug/api_priority_and_fairness/dump_queues of this thread. */
  dumpQueues(): string {
    return dumpQueues([this.snapshot()]);
  }

  /** /debug/api_priority_and_fairness/dump_requests of this thread. */
  dumpRequests(includeDetails: boolean): string {
    return dumpRequests([this.snapshot()], includeDetails);
  }
}

/** A waiting request as the dumps show it. */
interface RequestSnapshot {
  fsName: string;
  flowDistinguisher: string;
  arrivalWallMs: number;
  initialSeats: number;
  finalSeats: number;
  additionalLatencyMs: number;
  description: RequestDescription;
}

interface QueueSnapshot {
  pending: number;
  executing: number;
  seatsInUse: number;
  nextDispatchR: number;
  initialSeatsSum: number;
  maxSeatsSum: number;
  totalWorkSum: number;
  requests: RequestSnapshot[];
}

/** A level's state; `queues` null for the exempt level. */
type LevelSnapshot = { name: string; queues: null } | { name: string; idle: boolean; waiting: number; executing: number; queues: QueueSnapshot[] };

/** One thread's flow control state (FlowController.snapshot), what the debug dumps are made of. */
export interface FlowSnapshot {
  levels: LevelSnapshot[];
}

/**
 * The threads' snapshots as one server's: levels by name (in the first thread's order), queues by
 * index. Each thread has the same levels and queue indexes (same configuration); a queue's figures
 * are the sums over the threads (its requests are waiting on one of them), its NextDispatchR the
 * furthest thread's virtual time.
 */
function mergeLevels(all: readonly FlowSnapshot[]): LevelSnapshot[] {
  const byName = new Map<string, LevelSnapshot>();
  for (const snap of all) {
    for (const l of snap.levels) {
      const have = byName.get(l.name);
      if (!have) {
        byName.set(l.name, l.queues ? { ...l, queues: l.queues.map((q) => ({ ...q, requests: [...q.requests] })) } : l);
        continue;
      }
      if (!have.queues || !l.queues) continue;
      have.idle &&= l.idle;
      have.waiting += l.waiting;
      have.executing += l.executing;
      l.queues.forEach((q, i) => {
        const h = have.queues[i];
        if (!h) return void have.queues.push({ ...q, requests: [...q.requests] });
        h.pending += q.pending;
        h.executing += q.executing;
        h.seatsInUse += q.seatsInUse;
        h.nextDispatchR = Math.max(h.nextDispatchR, q.nextDispatchR);
        h.initialSeatsSum += q.initialSeatsSum;
        h.maxSeatsSum += q.maxSeatsSum;
        h.totalWorkSum += q.totalWorkSum;
        h.requests.push(...q.requests);
      });
    }
  }
  const levels = [...byName.values()];
  // Requests of a queue in arrival order, whichever thread holds them.
  if (all.length > 1) for (const l of levels) for (const q of l.queues ?? []) q.requests.sort((a, b) => a.arrivalWallMs - b.arrivalWallMs);
  return levels;
}

/** /debug/api_priority_and_fairness/dump_priority_levels: one row per level. */
function dumpPriorityLevels(all: readonly FlowSnapshot[]): string {
  const rows = [row('PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests')];
  for (const l of mergeLevels(all)) {
    if (!l.queues) rows.push(row(l.name, '<none>', '<none>', '<none>', '<none>', '<none>'));
    else rows.push(row(l.name, String(l.queues.filter((x) => x.pending > 0).length), String(l.idle), 'false', String(l.waiting), String(l.executing)));
  }
  return tabwrite(rows.map((r) => r + '\n').join(''));
}

/** /debug/api_priority_and_fairness/dump_queues: one row per queue of every level. */
function dumpQueues(all: readonly FlowSnapshot[]): string {
  const rows = [row('PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum')];
  for (const l of mergeLevels(all)) {
    if (!l.queues) {
      rows.push(row(l.name, ...Array<string>(8).fill('<none>')));
      continue;
    }
    l.queues.forEach((q, i) => rows.push(row(l.name, String(i), String(q.pending), String(q.executing), String(q.seatsInUse), seatSeconds(q.nextDispatchR), String(q.initialSeatsSum), String(q.maxSeatsSum), seatSeconds(q.totalWorkSum))));
  }
  return tabwrite(rows.map((r) => r + '\n').join(''));
}

/** /debug/api_priority_and_fairness/dump_requests: one row per waiting request. */
function dumpRequests(all: readonly FlowSnapshot[], includeDetails: boolean): string {
  let header = row('PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency');
  if (includeDetails) header += ',\t' + row('UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource');
  const rows = [header];
  for (const l of mergeLevels(all)) {
    if (!l.queues) continue;
    l.queues.forEach((q, iq) =>
      q.requests.forEach((r, ir) => {
        let line = row(l.name, r.fsName, String(iq), String(ir), r.flowDistinguisher, rfc3339Nano(r.arrivalWallMs), String(r.initialSeats), String(r.finalSeats), goDuration(r.additionalLatencyMs));
        if (includeDetails) {
          const x = r.description;
          line += ',\t' + row(x.userName, x.verb, x.path, x.namespace, x.name, x.apiVersion, x.resource, x.subresource);
        }
        rows.push(line);
      }),
    );
  }
  return tabwrite(rows.map((r) => r + '\n').join(''));
}

function describe(d: RequestDigest & { version?: string }): RequestDescription {
  const apiVersion = d.group ? `${d.group}/${d.version ?? ''}` : (d.version ?? '');
  return { userName: d.user.username, verb: d.verb, path: d.path, namespace: d.namespace, name: d.name, apiVersion, resource: d.resource, subresource: d.subresource };
}

const row = (...columns: string[]): string => columns.join(',\t');

/** kube's SeatSeconds.String: fixed point with 8 decimals and the `ss` unit. */
export function seatSeconds(x: number): string {
  const scaled = Math.max(0, Math.round(x * 1e8));
  return `${Math.floor(scaled / 1e8)}.${String(scaled % 1e8).padStart(8, '0')}ss`;
}

/** Go's time.Duration.String for whole-ish millisecond values (0s, 5ms, 1.5s). */
function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${+ms.toFixed(6)}ms`;
  return `${+(ms / 1000).toFixed(9)}s`;
}

/** RFC 3339 with nanoseconds as Go formats it (trailing zeros of the fraction dropped). */
function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.678Z
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return iso.slice(0, 19) + (frac ? `.${frac}` : '') + 'Z';
}
