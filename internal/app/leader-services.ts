/**
 * `--workers N` (issue 28): what kube-apiserver keeps once per process, and what a serving thread
 * must therefore ask its leader for — the per-process token authenticators (OIDC: one provider
 * discovery with kube's retries and one key set; the token webhook's cache; their successes in
 * kube's outer 10 s cache: app/token-auth.ts) — and what shows the server as one: the APF debug
 * dumps of every thread's queues. One MessagePort per thread (app/workers.ts creates it; its other
 * end is `ServerOptions.leaderServices` on the thread), calls both ways:
 *
 *   caller → callee  { id, service, arg }                       a call
 *   callee → caller  { re, value } | { re, error, errors? }    its answer (an Error's message; an
 *                                                               aggregate's parts)
 *
 * | service       | asked by → of | answer |
 * |---|---|---|
 * | tokens        | thread → leader | the token's TokenResponse or null, or the error TokenReview shows |
 * | apf-snapshots | thread → leader | every serving thread's FlowSnapshot (the leader gathers them) |
 * | apf-snapshot  | leader → thread | this thread's FlowSnapshot |
 * | metrics       | thread → leader | /metrics: the leader's sum of every thread's registry |
 * | own-metrics   | leader → thread | this thread's own registry (ThreadMetrics) |
 */
import type { MessagePort } from 'node:worker_threads';
import { AggregateAuthError, type TokenAuthenticator, type TokenContext, type TokenResponse } from '../auth/token/token.ts';
import type { FlowController, FlowSnapshot } from '../flowcontrol/controller.ts';
import type { ApiMetrics, ThreadMetrics } from '../metrics/api-metrics.ts';

/** What one side asks the other. */
export type LeaderService = 'tokens' | 'apf-snapshots' | 'apf-snapshot' | 'metrics' | 'own-metrics';

type Handler = (arg: unknown) => unknown;
type Call = { id: number; service: LeaderService; arg: unknown };
type Answer = { re: number; value?: unknown; error?: string; errors?: string[] };

/** A thread that does not answer (closing) is left out of a gathering after this long. */
const GATHER_TIMEOUT_MS = 2_000;

/** Calls and answers over one port, both ways; `handlers` answers the other side's calls. */
class PortRpc {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly port: MessagePort, handlers: Map<LeaderService, Handler>) {
    port.on('message', (m: Call | Answer) => {
      if ('re' in m) return this.answered(m);
      const answer = (a: Omit<Answer, 're'>): void => port.postMessage({ re: m.id, ...a } satisfies Answer);
      const handler = handlers.get(m.service);
      if (!handler) return answer({ error: `no service ${JSON.stringify(m.service)} here` });
      Promise.resolve()
        .then(() => handler(m.arg))
        .then(
          (value) => answer({ value }),
          (err: unknown) => answer({ error: err instanceof Error ? err.message : String(err), ...(err instanceof AggregateAuthError ? { errors: err.errors.map((e) => e.message) } : {}) }),
        );
    });
    // The thread's and the leader's lives are governed elsewhere (app/workers.ts), not by this port.
    port.unref();
  }

  private answered(m: Answer): void {
    const w = this.waiting.get(m.re);
    if (!w) return;
    this.waiting.delete(m.re);
    if (m.errors) w.reject(new AggregateAuthError(m.errors.map((e) => new Error(e))));
    else if (m.error !== undefined) w.reject(new Error(m.error));
    else w.resolve(m.value);
  }

  call(service: LeaderService, arg: unknown): Promise<unknown> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.port.postMessage({ id, service, arg } satisfies Call);
    });
  }

  close(): void {
    for (const w of this.waiting.values()) w.reject(new Error('the other thread is gone'));
    this.waiting.clear();
    this.port.close();
  }
}

/** The leader's side: its services, answered on every thread's port; calls to every thread. */
export class LeaderServices {
  private readonly handlers = new Map<LeaderService, Handler>();
  private readonly threads: PortRpc[] = [];

  register(name: LeaderService, handler: Handler): void {
    this.handlers.set(name, handler);
  }

  /** Offer a token authenticator (the one this process keeps) to the serving threads. */
  offerTokenAuthenticator(name: 'tokens', a: TokenAuthenticator): TokenAuthenticator {
    this.register(name, (arg) => {
      const { token, ctx } = arg as { token: string; ctx: TokenContext };
      return a.authenticateToken(token, ctx);
    });
    return a;
  }

  /** Answer one serving thread's calls on `port` (and call it). */
  attach(port: MessagePort): void {
    this.threads.push(new PortRpc(port, this.handlers));
  }

  /** Every thread's answer to `service`; a thread that fails or does not answer in 2 s is left out. */
  async gather(service: LeaderService, arg: unknown = null): Promise<unknown[]> {
    const answers = await Promise.all(
      this.threads.map(
        (t) =>
          new Promise<unknown[]>((resolve) => {
            const timer = setTimeout(() => resolve([]), GATHER_TIMEOUT_MS);
            t.call(service, arg).then(
              (v) => (clearTimeout(timer), resolve([v])),
              () => (clearTimeout(timer), resolve([])),
            );
          }),
      ),
    );
    return answers.flat();
  }

  close(): void {
    for (const t of this.threads.splice(0)) t.close();
  }
}

/** A serving thread's side: calls to its leader, and its own services the leader calls. */
export class LeaderClient {
  private readonly handlers = new Map<LeaderService, Handler>();
  private readonly rpc: PortRpc;

  constructor(port: MessagePort) {
    this.rpc = new PortRpc(port, this.handlers);
  }

  register(name: LeaderService, handler: Handler): void {
    this.handlers.set(name, handler);
  }

  call(service: LeaderService, arg: unknown = null): Promise<unknown> {
    return this.rpc.call(service, arg);
  }

  /** The leader's token authenticator `name`, asked per token. */
  tokenAuthenticator(name: 'tokens'): TokenAuthenticator {
    return {
      authenticateToken: async (token, ctx) => (await this.call(name, { token, ctx })) as TokenResponse | null,
    };
  }

  close(): void {
    this.rpc.close();
  }
}

/**
 * The APF debug dumps of `--workers N` show every serving thread's queues as one server's: the
 * leader gathers the snapshots (its own when it serves, then each thread's), and a thread asks the
 * leader for them.
 */
export function shareFlowControlDumps(fc: FlowController | undefined, via: { services?: LeaderServices; leader?: LeaderClient }): void {
  const { services, leader } = via;
  if (leader && fc) {
    leader.register('apf-snapshot', () => fc.snapshot());
    fc.everyThread = async () => (await leader.call('apf-snapshots')) as FlowSnapshot[];
  }
  if (services) {
    const all = async (): Promise<FlowSnapshot[]> => [...(fc ? [fc.snapshot()] : []), ...((await services.gather('apf-snapshot')) as FlowSnapshot[])];
    services.register('apf-snapshots', all);
    if (fc) fc.everyThread = all;
  }
}

/**
 * `/metrics` as one server's: a serving thread answers the leader's sum, and gives the leader its
 * own registry when asked; the leader sums its own and every thread's (`ApiMetrics.aggregateWith`).
 * Returns the leader's way to ask every thread for its own registry (thread order).
 */
export function shareMetrics(metrics: ApiMetrics, via: { services: LeaderServices }): () => Promise<ThreadMetrics[]>;
export function shareMetrics(metrics: ApiMetrics, via: { leader: LeaderClient }): void;
export function shareMetrics(metrics: ApiMetrics, via: { services?: LeaderServices; leader?: LeaderClient }): (() => Promise<ThreadMetrics[]>) | void {
  const { services, leader } = via;
  if (leader) {
    leader.register('own-metrics', () => metrics.own());
    metrics.forwardTo(async () => (await leader.call('metrics')) as { contentType: string; body: string });
  }
  if (services) {
    services.register('metrics', () =>
      metrics.render().catch((err: unknown) => ({ contentType: 'text/plain', body: `# metrics failed: ${(err as Error).message}\n` })),
    );
    const threads = async (): Promise<ThreadMetrics[]> => (await services.gather('own-metrics')) as ThreadMetrics[];
    metrics.aggregateWith(threads);
    return threads;
  }
}
