/**
 * Closed-loop load generator: N workers over an undici Pool of N keep-alive HTTP/1.1 connections
 * (TLS, client certificate). Each worker sends one request, reads the whole answer, and sends the
 * next. Only answers that complete inside the measurement window (after the warm-up) are counted.
 */
import { Pool } from 'undici';
import { summarize, type LatencySummary, round, configMapBody } from './util.ts';

export interface TlsMaterial {
  ca: string;
  cert?: string;
  key?: string;
}

export function makePool(origin: string, tls: TlsMaterial, connections: number): Pool {
  return new Pool(origin, {
    connections,
    pipelining: 1,
    connect: { ca: tls.ca, cert: tls.cert, key: tls.key },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    keepAliveTimeout: 60_000,
  });
}

export interface RequestSpec {
  method: 'POST' | 'GET' | 'PUT';
  path: string;
  body?: string;
}

export interface LoadResult {
  connections: number;
  warmupMs: number;
  windowMs: number;
  /** Answers with the expected status inside the window. */
  ok: number;
  okPerSec: number;
  /** Every status seen inside the window, with counts. */
  statuses: Record<string, number>;
  /** Transport errors (resets, timeouts) during warm-up and window. */
  errors: number;
  errorSamples: string[];
  /** First bodies of unexpected statuses. */
  badSamples: string[];
  latencyMs: LatencySummary;
  /** Requests sent in total, warm-up included. */
  sent: number;
  /** Longest gap (ms) between two consecutive completions inside the window: a stall detector. */
  maxGapMs: number;
}

/**
 * Run `connections` workers for warmupMs + durationMs. `next(worker, seq)` builds each request.
 */
export async function runLoad(opts: {
  pool: Pool;
  connections: number;
  warmupMs: number;
  durationMs: number;
  expectStatus: number;
  next: (worker: number, seq: number) => RequestSpec;
  /** Called when the measurement window opens (after the warm-up). */
  onWindowStart?: () => void;
}): Promise<LoadResult> {
  const { pool, connections, expectStatus } = opts;
  const t0 = performance.now();
  const windowStart = t0 + opts.warmupMs;
  const windowEnd = windowStart + opts.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const errorSamples: string[] = [];
  const badSamples: string[] = [];
  let ok = 0;
  let errors = 0;
  let sent = 0;
  let lastCompletion = windowStart;
  let maxGapMs = 0;

  const startTimer = setTimeout(() => opts.onWindowStart?.(), Math.max(0, opts.warmupMs));

  const worker = async (w: number) => {
    let seq = 0;
    while (performance.now() < windowEnd) {
      const spec = opts.next(w, seq++);
      const began = performance.now();
      sent++;
      try {
        const r = await pool.request({
          path: spec.path,
          method: spec.method,
          headers: spec.body !== undefined ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
          body: spec.body,
        });
        const text = await r.body.text();
        const done = performance.now();
        if (done >= windowStart && done <= windowEnd) {
          statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
          latencies.push(done - began);
          if (done - lastCompletion > maxGapMs) maxGapMs = done - lastCompletion;
          lastCompletion = done;
          if (r.statusCode === expectStatus) ok++;
          else if (badSamples.length < 5) badSamples.push(`${r.statusCode}: ${text.slice(0, 300)}`);
        }
      } catch (e) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(String((e as Error)?.message ?? e));
        // Do not spin on a dead server.
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, i) => worker(i)));
  clearTimeout(startTimer);
  const windowMs = opts.durationMs;
  return {
    connections,
    warmupMs: opts.warmupMs,
    windowMs,
    ok,
    okPerSec: round(ok / (windowMs / 1000), 1),
    statuses,
    errors,
    errorSamples,
    badSamples,
    latencyMs: summarize(latencies),
    sent,
    maxGapMs: round(maxGapMs, 1),
  };
}

/** Send exactly `count` requests with `concurrency` in flight; for bulk loading. */
export async function runCount(opts: {
  pool: Pool;
  concurrency: number;
  count: number;
  expectStatus: number;
  spec: (i: number) => RequestSpec;
  timeoutMs: number;
}): Promise<{ ok: number; failed: number; ms: number; perSec: number; samples: string[] }> {
  let nextIdx = 0;
  let ok = 0;
  let failed = 0;
  const samples: string[] = [];
  const t0 = performance.now();
  const deadline = t0 + opts.timeoutMs;
  const worker = async () => {
    while (nextIdx < opts.count && performance.now() < deadline) {
      const i = nextIdx++;
      const spec = opts.spec(i);
      try {
        const r = await opts.pool.request({ path: spec.path, method: spec.method, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: spec.body });
        const text = await r.body.text();
        if (r.statusCode === opts.expectStatus) ok++;
        else {
          failed++;
          if (samples.length < 5) samples.push(`${r.statusCode}: ${text.slice(0, 300)}`);
        }
      } catch (e) {
        failed++;
        if (samples.length < 5) samples.push(String((e as Error)?.message ?? e));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, () => worker()));
  const ms = performance.now() - t0;
  return { ok, failed, ms: round(ms, 1), perSec: round(ok / (ms / 1000), 1), samples };
}

/**
 * Fill a server with `count` 1 KiB ConfigMaps (`cm-0000000`…) in `namespace` over `connections`
 * keep-alive connections; throws when any create is not a 201.
 */
export async function fillConfigMaps(origin: string, tls: TlsMaterial, count: number, connections: number, namespace = 'default'): Promise<{ ok: number; ms: number; perSec: number }> {
  const pool = makePool(origin, tls, connections);
  try {
    const r = await runCount({
      pool,
      concurrency: connections,
      count,
      expectStatus: 201,
      timeoutMs: 30 * 60_000,
      spec: (i) => ({ method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: configMapBody(`cm-${String(i).padStart(7, '0')}`, namespace) }),
    });
    if (r.failed) throw new Error(`fill: ${r.failed} creates failed: ${r.samples.join(' | ')}`);
    return { ok: r.ok, ms: r.ms, perSec: r.perSec };
  } finally {
    await pool.close();
  }
}
