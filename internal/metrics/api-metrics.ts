/**
 * The metrics one API server process exposes at `/metrics` (Prometheus text format): kube-apiserver
 * 1.24's request metrics with their names, labels, buckets and stability classes, this server's own
 * log / fold / watch metrics, and prom-client's process and Node.js metrics. Each server owns its
 * prom-client Registry (no process-global state, so several servers can share a test process).
 *
 * Values that exist elsewhere anyway (offsets, object counts, ring size) are read when scraped
 * rather than updated on the write path; only per-request and per-batch observations are recorded
 * as they happen.
 */
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { annotatedHelp, isRegistered, type MetricMeta } from './lifecycle.ts';
import type { LogInstruments } from '../storage/log/instruments.ts';

/** apiserver_request_duration_seconds buckets (kube 1.24). */
const REQUEST_BUCKETS = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** Group-commit / produce batch sizes: powers of two up to the embedded log's 512-event batch. */
const BATCH_EVENT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
/** Batch write latency: an fsync is ~0.1–10 ms on local disks; a Kafka round trip up to seconds. */
const BATCH_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Admission webhook latency buckets: 5 ms to 2.5 s (kube 1.24). */
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** kube's max-in-flight filter reports the largest use during each period of this length. */
const INFLIGHT_PERIOD_MS = 1000;

const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const LONGRUNNING_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** The labels of one request (see request-labels.ts). */
export interface RequestLabels {
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** What a request in flight reports when it ends. */
export interface RequestTracker {
  /**
   * The response is complete (or the connection closed): record the request with this code;
   * `terminated`: the server refused it in self-defense (a 429 of the request limiter).
   */
  done(code: number, terminated?: boolean): void;
}

/** Live values of the storage and watch layers, read at scrape time. */
export interface MetricSources {
  /** Last folded offset. */
  folded(): number;
  /** The offset the next append gets (log end). */
  endOffset(): Promise<number>;
  /** Stored objects by kube's `resource` label (`configmaps`, `storageclasses.storage.k8s.io`). */
  objectCounts(): Map<string, number>;
  /** The watch ring: changes held and their bytes. */
  ring(): { changes: number; bytes: number };
  /** Watchers the hub ended, by reason (`slow`: its queue was full). */
  watchersEnded(): Record<string, number>;
  /** Bytes queued on watch streams for their clients (as last sampled), the peak, the limit (watch/budget.ts). */
  watchQueued?(): { bytes: number; peak: number; limit: number };
  /** Watch events serialized (once per change and format) and sent (once per watcher), by format. */
  watchEvents?(): { encoded: Record<string, number>; sent: Record<string, number> };
  /** Reads of the log for watches resumed below the ring: shared by every watcher waiting (and the events they went through), or for one watcher alone. */
  watchResumeReads?(): { shared: number; sharedEvents: number; own: number };
}

export interface ApiMetricsOptions {
  /** `--show-hidden-metrics-for-version` given (validated by the caller). */
  showHidden?: boolean;
  /**
   * A serving thread (app/workers.ts): no process or Node.js metrics (they are the process's,
   * reported once, by the leader, whose /metrics adds up every thread's).
   */
  servingThread?: boolean;
}

/** One thread's metrics as prom-client's JSON (what AggregatorRegistry adds up). */
export type ThreadMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * Labels in the order Go's Prometheus client writes them (sorted by name), so series read as
 * kube-apiserver's; prom-client writes a series' labels in the order of the object's keys.
 */
function sorted<T extends Record<string, string>>(labels: T): T {
  const out: Record<string, string> = {};
  for (const k of Object.keys(labels).sort()) out[k] = labels[k]!;
  return out as T;
}

export class ApiMetrics {
  readonly registry = new Registry();
  private readonly showHidden: boolean;
  private sources: MetricSources | null = null;
  private foldedAtStart = -1;
  private readonly inflight = { readOnly: 0, mutating: 0 };
  private readonly watermark = { readOnly: 0, mutating: 0 };
  private readonly timer: NodeJS.Timeout;

  private readonly requestTotal: Counter<string>;
  private readonly requestDuration: Histogram<string>;
  private readonly deprecatedApis: Gauge<string>;
  private readonly longRunning: Gauge<string>;
  private readonly longRunningOld?: Gauge<string>;
  private readonly registeredWatchers?: Gauge<string>;
  private readonly currentInflight: Gauge<string>;
  private readonly dropped?: Counter<string>;
  private readonly terminations?: Counter<string>;
  private readonly batchEvents: Histogram<string>;
  private readonly batchSeconds: Histogram<string>;
  private readonly webhookDuration?: Histogram<string>;
  private readonly webhookRequests?: Counter<string>;
  private readonly webhookRejections?: Counter<string>;
  private readonly webhookFailOpen?: Counter<string>;
  private readonly serviceAccountTokens: Record<'legacy' | 'stale' | 'valid', Counter<string>>;

  constructor(opts: ApiMetricsOptions = {}) {
    this.showHidden = opts.showHidden ?? false;
    this.requestTotal = this.counter({ name: 'apiserver_request_total', help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.', stabilityLevel: 'STABLE' }, [...REQUEST_LABELS, 'code'])!;
    this.requestDuration = this.histogram({ name: 'apiserver_request_duration_seconds', help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', stabilityLevel: 'STABLE' }, [...REQUEST_LABELS], REQUEST_BUCKETS)!;
    this.deprecatedApis = this.gauge({ name: 'apiserver_requested_deprecated_apis', help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.', stabilityLevel: 'STABLE' }, ['group', 'version', 'resource', 'subresource', 'removed_release'], undefined, 'max')!; // 1: requested on some thread
    this.longRunning = this.gauge({ name: 'apiserver_longrunning_requests', help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.', stabilityLevel: 'ALPHA' }, [...LONGRUNNING_LABELS])!;
    this.longRunningOld = this.gauge({ name: 'apiserver_longrunning_gauge', help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.', stabilityLevel: 'ALPHA', deprecatedVersion: '1.23.0' }, [...LONGRUNNING_LABELS]);
    this.registeredWatchers = this.gauge({ name: 'apiserver_registered_watchers', help: 'Number of currently registered watchers for a given resources', stabilityLevel: 'ALPHA', deprecatedVersion: '1.23.0' }, ['group', 'version', 'kind']);
    this.currentInflight = this.gauge({ name: 'apiserver_current_inflight_requests', help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', stabilityLevel: 'STABLE' }, ['request_kind'])!;
    // Requests the limiter refused (kube's RecordDroppedRequest and RecordRequestTermination).
    this.dropped = this.counter({ name: 'apiserver_dropped_requests_total', help: "Number of requests dropped with 'Try again later' response. Use apiserver_request_total and/or apiserver_request_terminations_total metrics instead.", stabilityLevel: 'ALPHA', deprecatedVersion: '1.24.0' }, ['request_kind']);
    this.terminations = this.counter({ name: 'apiserver_request_terminations_total', help: 'Number of requests which apiserver terminated in self-defense.', stabilityLevel: 'ALPHA' }, [...LONGRUNNING_LABELS, 'code']);
    this.gauge({ name: 'apiserver_storage_objects', help: 'Number of stored objects at the time of last check split by kind.', stabilityLevel: 'STABLE' }, ['resource'], (g) => {
      g.reset();
      for (const [resource, n] of this.sources?.objectCounts() ?? []) g.set({ resource }, n);
    });

    // This server's own: the log, the fold and the watch ring.
    this.gauge({ name: 'eventlog_end_offset', help: 'Offset the next event appended to the log will get.', stabilityLevel: 'ALPHA' }, [], async (g) => {
      if (this.sources) g.set(await this.sources.endOffset());
    });
    this.gauge({ name: 'eventlog_folded_offset', help: 'Last log offset folded into the snapshot (the newest resourceVersion this replica serves).', stabilityLevel: 'ALPHA' }, [], (g) => {
      if (this.sources) g.set(this.sources.folded());
    });
    this.gauge({ name: 'eventlog_fold_lag_events', help: 'Events appended to the log but not folded yet by this replica.', stabilityLevel: 'ALPHA' }, [], async (g) => {
      if (this.sources) g.set(Math.max(0, (await this.sources.endOffset()) - 1 - this.sources.folded()));
    });
    this.counter({ name: 'eventlog_events_folded_total', help: 'Events folded by this process since it started.', stabilityLevel: 'ALPHA' }, [], (c) => {
      if (!this.sources) return;
      c.reset();
      c.inc(Math.max(0, this.sources.folded() - this.foldedAtStart));
    });
    this.batchEvents = this.histogram({ name: 'eventlog_append_batch_events', help: 'Events per durable log write: one group commit (embedded) or one produce request (kafka).', stabilityLevel: 'ALPHA' }, ['backend'], BATCH_EVENT_BUCKETS)!;
    this.batchSeconds = this.histogram({ name: 'eventlog_append_batch_duration_seconds', help: 'Time one durable log write took: LevelDB batch with fsync (embedded) or produce with acks=all (kafka).', stabilityLevel: 'ALPHA' }, ['backend'], BATCH_SECONDS_BUCKETS)!;
    this.gauge({ name: 'watch_ring_changes', help: 'Changes held in the watch ring (recent history served to watches from memory).', stabilityLevel: 'ALPHA' }, [], (g) => {
      if (this.sources) g.set(this.sources.ring().changes);
    });
    this.gauge({ name: 'watch_ring_bytes', help: 'Bytes of the changes held in the watch ring.', stabilityLevel: 'ALPHA' }, [], (g) => {
      if (this.sources) g.set(this.sources.ring().bytes);
    });
    this.counter({ name: 'watch_watchers_ended_total', help: 'Watches ended by the server, by reason: slow (its queue filled up), budget (the queues of all watches together passed --watch-total-buffer-bytes and it held the most), expired (history compacted while it caught up), closed (server shutdown).', stabilityLevel: 'ALPHA' }, ['reason'], (c) => {
      if (!this.sources) return;
      c.reset();
      for (const [reason, n] of Object.entries(this.sources.watchersEnded())) c.inc({ reason }, n);
    });
    for (const [key, name, help] of [
      ['bytes', 'watch_queued_bytes', 'Bytes written to watch streams and not yet taken by their clients (as last sampled; an overestimate between samples).'],
      ['peak', 'watch_queued_bytes_peak', 'The largest watch_queued_bytes seen, before the streams over watch_queued_bytes_limit were ended.'],
      ['limit', 'watch_queued_bytes_limit', 'Bytes all watch streams together may have queued (--watch-total-buffer-bytes); past it the largest are ended as too slow.'],
    ] as const) {
      this.gauge({ name, help, stabilityLevel: 'ALPHA' }, [], (g) => {
        const q = this.sources?.watchQueued?.();
        if (q) g.set(q[key]);
      });
    }
    // Encoded vs sent: a change is serialized once per format and its bytes go to every watcher.
    this.counter({ name: 'watch_events_encoded_total', help: 'Watch events serialized, by format (json, protobuf, table, metadata): once per change and format, shared by every watcher that gets it.', stabilityLevel: 'ALPHA' }, ['format'], (c) => {
      const counts = this.sources?.watchEvents?.();
      if (!counts) return;
      c.reset();
      for (const [format, n] of Object.entries(counts.encoded)) c.inc({ format }, n);
    });
    this.counter({ name: 'watch_resume_reads_total', help: 'Reads of the log for watches resumed from a resourceVersion older than the watch ring, by kind: shared (one read extends the ring down for every watcher waiting below it) or own (for one watcher alone: the ring had no room for its range).', stabilityLevel: 'ALPHA' }, ['kind'], (c) => {
      const reads = this.sources?.watchResumeReads?.();
      if (!reads) return;
      c.reset();
      c.inc({ kind: 'shared' }, reads.shared);
      c.inc({ kind: 'own' }, reads.own);
    });
    this.counter({ name: 'watch_resume_read_events_total', help: 'Log events the shared resume reads (watch_resume_reads_total{kind="shared"}) went through.', stabilityLevel: 'ALPHA' }, [], (c) => {
      const reads = this.sources?.watchResumeReads?.();
      if (!reads) return;
      c.reset();
      c.inc(reads.sharedEvents);
    });
    this.counter({ name: 'watch_events_sent_total', help: 'Watch events sent to watchers, by format (json, protobuf, table, metadata).', stabilityLevel: 'ALPHA' }, ['format'], (c) => {
      const counts = this.sources?.watchEvents?.();
      if (!counts) return;
      c.reset();
      for (const [format, n] of Object.entries(counts.sent)) c.inc({ format }, n);
    });
    // kube's admission webhook metrics (apiserver/pkg/admission/metrics), same names and labels.
    this.webhookDuration = this.histogram({ name: 'apiserver_admission_webhook_admission_duration_seconds', help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).', stabilityLevel: 'STABLE' }, ['name', 'type', 'operation', 'rejected'], WEBHOOK_BUCKETS);
    this.webhookRequests = this.counter({ name: 'apiserver_admission_webhook_request_total', help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.', stabilityLevel: 'ALPHA' }, ['name', 'type', 'operation', 'code', 'rejected']);
    this.webhookRejections = this.counter({ name: 'apiserver_admission_webhook_rejection_count', help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.', stabilityLevel: 'ALPHA' }, ['name', 'type', 'operation', 'error_type', 'rejection_code']);
    this.webhookFailOpen = this.counter({ name: 'apiserver_admission_webhook_fail_open_count', help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).', stabilityLevel: 'ALPHA' }, ['name', 'type']);
    // pkg/serviceaccount/metrics.go: service-account tokens authenticated, by kind.
    this.serviceAccountTokens = {
      legacy: this.counter({ name: 'serviceaccount_legacy_tokens_total', help: 'Cumulative legacy service account tokens used', stabilityLevel: 'ALPHA' }, [])!,
      stale: this.counter({ name: 'serviceaccount_stale_tokens_total', help: 'Cumulative stale projected service account tokens used', stabilityLevel: 'ALPHA' }, [])!,
      valid: this.counter({ name: 'serviceaccount_valid_tokens_total', help: 'Cumulative valid projected service account tokens used', stabilityLevel: 'ALPHA' }, [])!,
    };
    if (!opts.servingThread) collectDefaultMetrics({ register: this.registry });

    // The max-in-flight filter's watermark: every period, report the period's peak, then restart
    // from what is in flight now.
    this.timer = setInterval(() => this.publishInflight(), INFLIGHT_PERIOD_MS);
    this.timer.unref();
    this.publishInflight();
  }

  /** Connect the scrape-time sources once storage and the watch hub exist. */
  attach(sources: MetricSources): void {
    this.sources = sources;
    this.foldedAtStart = sources.folded();
  }

  /** Observer for the log backends (group commits, produce requests). */
  logInstruments(): LogInstruments {
    return {
      appended: (backend, events, seconds) => {
        this.batchEvents.observe({ backend }, events);
        this.batchSeconds.observe({ backend }, seconds);
      },
    };
  }

  /**
   * A request starts. Every request counts in the in-flight gauges except long-running ones
   * (watches), which are tracked in the long-running gauges instead; only requests with `labels`
   * (kube instruments its API routes and health checks, not discovery or OpenAPI) are recorded in
   * apiserver_request_total and the duration histogram. `watchKind` is the watched
   * group/version/kind for the watchers gauge.
   */
  startRequest(opts: { labels?: RequestLabels; kind: 'readOnly' | 'mutating'; longRunning: boolean; watchKind?: { group: string; version: string; kind: string } }): RequestTracker {
    const started = process.hrtime.bigint();
    const labels = opts.labels;
    // Label objects written in sorted key order as literals (what `sorted` would build): two
    // sorts per request were ~1.5% of a create's CPU.
    const lr = labels && { component: labels.component, group: labels.group, resource: labels.resource, scope: labels.scope, subresource: labels.subresource, verb: labels.verb, version: labels.version };
    if (opts.longRunning) {
      if (lr) {
        this.longRunning.inc(lr);
        this.longRunningOld?.inc(lr);
      }
      if (opts.watchKind) this.registeredWatchers?.inc(sorted(opts.watchKind));
    } else {
      this.inflight[opts.kind]++;
      if (this.inflight[opts.kind] > this.watermark[opts.kind]) this.watermark[opts.kind] = this.inflight[opts.kind];
    }
    let ended = false;
    return {
      done: (code: number, terminated?: boolean) => {
        if (ended) return;
        ended = true;
        if (terminated) {
          this.dropped?.inc({ request_kind: opts.kind });
          if (lr) this.terminations?.inc({ code: String(code), ...lr });
        }
        if (opts.longRunning) {
          if (lr) {
            this.longRunning.dec(lr);
            this.longRunningOld?.dec(lr);
          }
          if (opts.watchKind) this.registeredWatchers?.dec(sorted(opts.watchKind));
        } else {
          this.inflight[opts.kind]--;
        }
        if (!labels) return;
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const { component, dry_run, group, resource, scope, subresource, verb, version } = labels;
        this.requestTotal.inc({ code: String(code), component, dry_run, group, resource, scope, subresource, verb, version });
        this.requestDuration.observe({ component, dry_run, group, resource, scope, subresource, verb, version }, seconds);
      },
    };
  }

  /** One admission webhook call (kube's ObserveWebhook, ObserveWebhookRejection, ObserveWebhookFailOpen). */
  observeWebhook(o: { name: string; type: string; operation: string; rejected: boolean; code: number; seconds: number; failedOpen: boolean; rejectionCode?: string }): void {
    const code = String(Math.min(o.code, 600));
    this.webhookRequests?.inc(sorted({ name: o.name, type: o.type, operation: o.operation, code, rejected: String(o.rejected) }));
    this.webhookDuration?.observe(sorted({ name: o.name, type: o.type, operation: o.operation, rejected: String(o.rejected) }), o.seconds);
    if (o.rejectionCode) this.webhookRejections?.inc(sorted({ name: o.name, type: o.type, operation: o.operation, error_type: o.rejectionCode, rejection_code: code }));
    if (o.failedOpen) this.webhookFailOpen?.inc(sorted({ name: o.name, type: o.type }));
  }

  /** A request reached a deprecated API version (MonitorRequest's deprecated branch). */
  deprecatedRequest(l: { group: string; version: string; resource: string; subresource: string; removedRelease: string }): void {
    this.deprecatedApis.set(sorted({ group: l.group, version: l.version, resource: l.resource, subresource: l.subresource, removed_release: l.removedRelease }), 1);
  }

  /** A service-account token was used: legacy (no audience), or projected past / before its warnafter. */
  serviceAccountTokenUsed(kind: 'legacy' | 'stale' | 'valid'): void {
    this.serviceAccountTokens[kind].inc();
  }

  /**
   * `--workers N`: the leader's /metrics adds up its serving threads' metrics (`peers`) and its own
   * (counters and histograms summed, gauges summed: in-flight and watcher counts are per thread);
   * a serving thread's /metrics is the leader's (`forward`), so every connection sees one server.
   */
  aggregateWith(peers: () => Promise<ThreadMetrics[]>): void {
    this.peers = peers;
  }

  forwardTo(render: () => Promise<{ contentType: string; body: string }>): void {
    this.forward = render;
  }

  private peers: (() => Promise<ThreadMetrics[]>) | null = null;
  private forward: (() => Promise<{ contentType: string; body: string }>) | null = null;

  /** This thread's own metrics (a serving thread's answer to its leader). */
  own(): Promise<ThreadMetrics> {
    return this.registry.getMetricsAsJSON();
  }

  /** The Prometheus text exposition of every registered metric (of every serving thread). */
  async render(): Promise<{ contentType: string; body: string }> {
    if (this.forward) return this.forward();
    if (!this.peers) return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    const all = [await this.own(), ...(await this.peers())];
    const sum = AggregatorRegistry.aggregate(all);
    return { contentType: sum.contentType, body: await sum.metrics() };
  }

  /** Stop the in-flight period timer. Idempotent. */
  close(): void {
    clearInterval(this.timer);
  }

  private publishInflight(): void {
    this.currentInflight.set({ request_kind: 'readOnly' }, this.watermark.readOnly);
    this.currentInflight.set({ request_kind: 'mutating' }, this.watermark.mutating);
    this.watermark.readOnly = this.inflight.readOnly;
    this.watermark.mutating = this.inflight.mutating;
  }

  private counter<K extends string>(meta: MetricMeta, labelNames: K[], collect?: (c: Counter<K>) => void | Promise<void>): Counter<K> | undefined {
    if (!isRegistered(meta, this.showHidden)) return undefined;
    return new Counter<K>({ name: meta.name, help: annotatedHelp(meta), labelNames, registers: [this.registry], ...(collect ? { collect(this: Counter<K>) { return collect(this); } } : {}) });
  }

  /** `aggregator`: how `--workers` threads' values add up (aggregateWith; prom-client's default sums). */
  private gauge<K extends string>(meta: MetricMeta, labelNames: K[], collect?: (g: Gauge<K>) => void | Promise<void>, aggregator?: 'max'): Gauge<K> | undefined {
    if (!isRegistered(meta, this.showHidden)) return undefined;
    return new Gauge<K>({ name: meta.name, help: annotatedHelp(meta), labelNames, registers: [this.registry], ...(aggregator ? { aggregator } : {}), ...(collect ? { collect(this: Gauge<K>) { return collect(this); } } : {}) });
  }

  private histogram<K extends string>(meta: MetricMeta, labelNames: K[], buckets: number[]): Histogram<K> | undefined {
    if (!isRegistered(meta, this.showHidden)) return undefined;
    return new Histogram<K>({ name: meta.name, help: annotatedHelp(meta), labelNames, buckets, registers: [this.registry] });
  }
}
