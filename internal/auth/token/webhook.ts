/**
 * Webhook token authentication (--authentication-token-webhook-config-file, -version, -cache-ttl):
 * k8s.io/apiserver plugin/pkg/authenticator/token/webhook 1.24. Each token not already cached is
 * POSTed as an authentication.k8s.io TokenReview (v1beta1 by default, or v1) to the service the
 * kubeconfig names; its status says whether, as whom, and for which audiences.
 *
 * Failures (unreachable service, non-2xx, a body that is no TokenReview) are errors: the request
 * gets 401, TokenReview gets the message in status.error, and — kube's choice — errors are never
 * cached, so the next request asks again. 500s, 504s, 429s and connection resets are retried with
 * kube's backoff (500 ms × 1.5ⁿ, ±20 % jitter, 5 attempts) before giving up.
 */
import type { Agent } from 'undici';
import type * as Undici from 'undici';
import { lazyRequire } from '../../lazy.ts';
import { parse as parseYaml } from 'yaml';
import type { UserInfo } from '../../api/types.ts';
import { genericServerResponse, unstructuredResponseText } from '../../api/errors.ts';
import { cachedTokenAuthenticator } from './cache.ts';
import { intersectAudiences, type TokenAuthenticator, type TokenResponse } from './token.ts';
import type { WebhookClientConfig } from './webhook-config.ts';
import { isObj } from '../../gocompat/json.ts';

/** undici, loaded when the first webhook is built (start-up time: see internal/lazy.ts). */
const undici = lazyRequire<typeof Undici>('undici');

export const WEBHOOK_VERSIONS = ['v1', 'v1beta1'] as const;
export type WebhookVersion = (typeof WEBHOOK_VERSIONS)[number];

/** --authentication-token-webhook-cache-ttl's default. */
export const DEFAULT_WEBHOOK_CACHE_TTL_MS = 2 * 60_000;
/** util/webhook's defaultRequestTimeout. */
const REQUEST_TIMEOUT_MS = 30_000;

/** wait.Backoff as DefaultRetryBackoffWithInitialDelay(500ms) sets it. */
export interface RetryBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
}
export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** --authentication-token-webhook-version, checked as kube checks it at start-up. */
export function parseWebhookVersion(v: string): WebhookVersion {
  if ((WEBHOOK_VERSIONS as readonly string[]).includes(v)) return v as WebhookVersion;
  throw new Error(`unsupported authentication webhook version ${JSON.stringify(v)}, supported versions are "v1", "v1beta1"`);
}

export interface WebhookTokenOptions {
  client: WebhookClientConfig;
  version: WebhookVersion;
  /** --api-audiences: what a webhook answer without audiences is taken to be valid for. */
  implicitAudiences: readonly string[];
  retryBackoff?: RetryBackoff;
}

class WebhookCallError extends Error {
  constructor(message: string, readonly retry: boolean) {
    super(message);
  }
}

type Obj = Record<string, unknown>;

/** webhook.DefaultShouldRetry: an internal error, a timeout or too many requests is transient. */
const transientReason = (reason: unknown): boolean => reason === 'InternalError' || reason === 'Timeout' || reason === 'TooManyRequests';

/** The error of a non-2xx answer: a Status body's message when it is one, else the generic text. */
function responseError(code: number, text: string, contentType: string | undefined, retryAfter: boolean): WebhookCallError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  if (isObj(parsed) && parsed.kind === 'Status' && typeof parsed.message === 'string') {
    return new WebhookCallError(parsed.message, transientReason(parsed.reason) || retryAfter);
  }
  const g = genericServerResponse(code, 'POST', unstructuredResponseText(contentType, text));
  return new WebhookCallError(g.message, transientReason(g.reason) || retryAfter);
}

/** Go's net/http error text for a failed POST. */
function transportError(url: string, err: unknown): WebhookCallError {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  const host = new URL(url).host;
  if (code === 'ECONNREFUSED') return new WebhookCallError(`Post ${JSON.stringify(url)}: dial tcp ${host}: connect: connection refused`, false);
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return new WebhookCallError(`Post ${JSON.stringify(url)}: read: connection reset by peer`, true);
  return new WebhookCallError(`Post ${JSON.stringify(url)}: ${e.cause?.message ?? e.message ?? String(err)}`, false);
}

/** The status of a TokenReview answer, read as Go decodes it (wrong types are errors). */
interface ReviewStatus {
  authenticated: boolean;
  user: UserInfo;
  audiences: string[];
  error: string;
}

const jsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

/**
 * The status of a TokenReview answer, read as Go's encoding/json decodes it into the version's
 * types: a wrong type is an error in Go's words ("json: cannot unmarshal string into Go struct
 * field UserInfo.status.user.groups of type []string"); null is a zero value.
 */
function decodeStatus(text: string, version: WebhookVersion): ReviewStatus {
  // client-go's JSON serializer reads YAML too (a body `hello` is the string "hello").
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    try {
      doc = parseYaml(text);
    } catch (e) {
      throw new WebhookCallError(`couldn't get version/kind; json parse error: ${(e as Error).message}`, false);
    }
  }
  if (!isObj(doc)) throw new WebhookCallError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`, false);
  const fail = (v: unknown, struct: string, path: string, type: string): never => {
    throw new WebhookCallError(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${struct}.${path} of type ${type}`, false);
  };
  const obj = (v: unknown, struct: string, path: string, type: string): Obj => {
    if (v === undefined || v === null) return {};
    return isObj(v) ? v : fail(v, struct, path, type);
  };
  const str = (v: unknown, struct: string, path: string): string => {
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : fail(v, struct, path, 'string');
  };
  const strings = (v: unknown, struct: string, path: string, type = '[]string'): string[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return fail(v, struct, path, type);
    return v.map((x) => (x === null ? '' : typeof x === 'string' ? x : fail(x, struct, path, 'string')));
  };
  const status = obj(doc.status, 'TokenReview', 'status', `${version}.TokenReviewStatus`);
  if (status.authenticated !== undefined && status.authenticated !== null && typeof status.authenticated !== 'boolean') fail(status.authenticated, 'TokenReviewStatus', 'status.authenticated', 'bool');
  const user = obj(status.user, 'TokenReviewStatus', 'status.user', `${version}.UserInfo`);
  const info: UserInfo = { username: str(user.username, 'UserInfo', 'status.user.username'), groups: strings(user.groups, 'UserInfo', 'status.user.groups') };
  const uid = str(user.uid, 'UserInfo', 'status.user.uid');
  if (uid) info.uid = uid;
  if (user.extra !== undefined && user.extra !== null) {
    const extra = obj(user.extra, 'UserInfo', 'status.user.extra', `map[string]${version}.ExtraValue`);
    info.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strings(v, 'UserInfo', 'status.user.extra', `${version}.ExtraValue`)]));
  }
  return {
    authenticated: status.authenticated === true,
    user: info,
    audiences: strings(status.audiences, 'TokenReviewStatus', 'status.audiences'),
    error: str(status.error, 'TokenReviewStatus', 'status.error'),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The webhook authenticator itself (uncached). `close()` drops its connections.
 */
export class WebhookTokenAuthenticator implements TokenAuthenticator {
  private readonly agent: Agent;
  private readonly backoff: RetryBackoff;
  private readonly url: string;

  constructor(private readonly opts: WebhookTokenOptions) {
    const c = opts.client;
    this.agent = new undici.Agent({
      connect: { ca: c.ca, cert: c.cert, key: c.key, servername: c.servername, rejectUnauthorized: !c.insecureSkipTlsVerify },
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    this.backoff = opts.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
    // client-go adds the client's timeout to every request's query (`?timeout=30s`).
    const u = new URL(c.url);
    u.searchParams.set('timeout', `${REQUEST_TIMEOUT_MS / 1000}s`);
    this.url = u.toString();
  }

  async authenticateToken(token: string, ctx: { audiences?: string[] }): Promise<TokenResponse | null> {
    const wanted = ctx.audiences;
    const spec: Obj = { token };
    if (wanted?.length) spec.audiences = wanted;
    // The TokenReview as client-go encodes it: zero metadata, the always-present status.user.
    const body = JSON.stringify({ kind: 'TokenReview', apiVersion: `authentication.k8s.io/${this.opts.version}`, metadata: { creationTimestamp: null }, spec, status: { user: {} } }) + '\n';
    const status = await this.callWithBackoff(body);
    let auds: string[] = [];
    if (wanted !== undefined) {
      const got = status.audiences.length ? status.audiences : this.opts.implicitAudiences;
      auds = intersectAudiences(got, wanted);
      if (!auds.length) return null;
    }
    if (!status.authenticated) {
      if (status.error) throw new Error(status.error);
      return null;
    }
    return { user: status.user, audiences: auds };
  }

  private async callWithBackoff(body: string): Promise<ReviewStatus> {
    let delay = this.backoff.initialMs;
    for (let step = 1; ; step++) {
      try {
        return await this.call(body);
      } catch (e) {
        if (!(e instanceof WebhookCallError) || !e.retry || step >= this.backoff.steps) throw e;
      }
      await sleep(delay * (1 + Math.random() * this.backoff.jitter));
      delay *= this.backoff.factor;
    }
  }

  private async call(body: string): Promise<ReviewStatus> {
    const c = this.opts.client;
    // What client-go's REST client sends: Go's default User-Agent (the webhook kubeconfig sets
    // none), JSON both ways.
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, */*', 'user-agent': 'Go-http-client/1.1' };
    if (c.authorization) headers.authorization = c.authorization;
    let res;
    try {
      res = await undici.request(this.url, { method: 'POST', headers, body, dispatcher: this.agent });
    } catch (e) {
      throw transportError(this.url, e);
    }
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) {
      const type = res.headers['content-type'];
      throw responseError(res.statusCode, text, Array.isArray(type) ? type[0] : type, res.headers['retry-after'] !== undefined);
    }
    return decodeStatus(text, this.opts.version);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * The webhook authenticator as kube-apiserver wires it: wrapped in its own cache, which keeps
 * successes and rejections for `cacheTtlMs` and never errors (0: no cache).
 */
export function cachedWebhookTokenAuthenticator(webhook: WebhookTokenAuthenticator, cacheTtlMs: number): TokenAuthenticator {
  if (cacheTtlMs <= 0) return webhook;
  return cachedTokenAuthenticator(webhook, { cacheErrors: false, successTtlMs: cacheTtlMs, failureTtlMs: cacheTtlMs });
}
