/**
 * `--workers N` (issue 28): what kube-apiserver keeps once per process and a serving thread must
 * therefore ask its leader for instead of keeping its own — the OIDC authenticator (one provider
 * discovery with kube's retries, one JWKS), the token webhook's cache (one call per token per
 * --authentication-token-webhook-cache-ttl) — over one MessagePort per thread (app/workers.ts
 * creates it; its other end is `ServerOptions.leaderServices` on the thread).
 *
 *   thread → leader  { id, service, arg }          a call
 *   leader → thread  { id, value } | { id, error } its answer (an Error's message)
 *
 * A token authenticator's answer is the token's (user, audiences, annotations) or null, or the
 * error whose message TokenReview shows; the thread's own outer cache (10 s successes) is kept.
 */
import type { MessagePort } from 'node:worker_threads';
import { AggregateAuthError, type TokenAuthenticator, type TokenContext, type TokenResponse } from '../auth/token/token.ts';

type Call = { id: number; service: string; arg: unknown };
/** An error's message; an aggregate's parts too, so the thread's union flattens them as kube's. */
type Answer = { id: number; value?: unknown; error?: string; errors?: string[] };

/** The names of what a leader serves its threads: `tokens`, its per-process token authenticators (app/token-auth.ts). */
export type LeaderService = 'tokens';

/** The leader's side: services by name, answered on every thread's port. */
export class LeaderServices {
  private readonly handlers = new Map<string, (arg: unknown) => Promise<unknown>>();
  private readonly ports: MessagePort[] = [];

  register(name: LeaderService, handler: (arg: unknown) => Promise<unknown>): void {
    this.handlers.set(name, handler);
  }

  /** Offer a token authenticator (the one this process keeps) to the serving threads. */
  offerTokenAuthenticator(name: LeaderService, a: TokenAuthenticator): TokenAuthenticator {
    this.register(name, (arg) => {
      const { token, ctx } = arg as { token: string; ctx: TokenContext };
      return a.authenticateToken(token, ctx);
    });
    return a;
  }

  /** Answer one serving thread's calls on `port`. */
  attach(port: MessagePort): void {
    this.ports.push(port);
    port.on('message', (m: Call) => {
      const handler = this.handlers.get(m.service);
      const answer = (a: Omit<Answer, 'id'>): void => port.postMessage({ id: m.id, ...a } satisfies Answer);
      if (!handler) return answer({ error: `no leader service ${JSON.stringify(m.service)}` });
      handler(m.arg).then(
        (value) => answer({ value }),
        (err: unknown) => answer({ error: err instanceof Error ? err.message : String(err), ...(err instanceof AggregateAuthError ? { errors: err.errors.map((e) => e.message) } : {}) }),
      );
    });
    port.unref();
  }

  close(): void {
    for (const p of this.ports.splice(0)) p.close();
  }
}

/** A serving thread's side: calls to its leader. */
export class LeaderClient {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly port: MessagePort) {
    port.on('message', (m: Answer) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.errors) w.reject(new AggregateAuthError(m.errors.map((e) => new Error(e))));
      else if (m.error !== undefined) w.reject(new Error(m.error));
      else w.resolve(m.value);
    });
    port.unref();
  }

  call(service: LeaderService, arg: unknown): Promise<unknown> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.port.postMessage({ id, service, arg } satisfies Call);
    });
  }

  /** The leader's token authenticator `name`, asked per token. */
  tokenAuthenticator(name: LeaderService): TokenAuthenticator {
    return {
      authenticateToken: async (token, ctx) => (await this.call(name, { token, ctx })) as TokenResponse | null,
    };
  }

  close(): void {
    for (const w of this.waiting.values()) w.reject(new Error('the leader is gone'));
    this.waiting.clear();
    this.port.close();
  }
}
