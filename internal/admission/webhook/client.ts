/**
 * One HTTPS POST of an AdmissionReview to a webhook (kube's webhookutil.ClientManager + rest
 * client): the webhook's `url`, or its `service` resolved as kube-apiserver's default
 * ClusterIPServiceResolver does — an ExternalName Service gives `https://<externalName>:<port>`,
 * ClusterIP/NodePort/LoadBalancer Services give `https://<clusterIP>:<service port>` (reachable only
 * where a cluster network routes Service IPs, as with kube-apiserver without one). The TLS server
 * name of a service reference is `<name>.<namespace>.svc`, and `caBundle` (else the system roots)
 * is trusted. The timeout is sent as `?timeout=<n>s` and enforced here, as kube's rest client does.
 */
import { Agent, request } from 'node:https';
import type { KubeObject } from '../../api/types.ts';
import { genericServerResponse, unstructuredResponseText } from '../../api/errors.ts';
import type { Webhook } from './source.ts';

/** A Service as the resolver reads it, or undefined when it does not exist. */
export type ServiceLookup = (namespace: string, name: string) => KubeObject | undefined;

/** The call failed before a usable answer (kube's ErrCallingWebhook); `status` is what it maps to. */
export class CallError extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
    /** The code of the Status the failure maps to (metrics): 400 unless the webhook answered one. */
    readonly code = 400,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
  }
}

/** Webhook answers larger than this are refused (kube reads at most what its client decodes; 3 MiB bounds memory here). */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

interface Target {
  /** Where the call goes. */
  url: URL;
  /** The URL as kube's client names it in errors (`https://<svc>.<ns>.svc:<port><path>` for a service). */
  shown: URL;
  servername?: string;
}

/** Where the webhook is reached: its URL, or the resolved service (throws a reason text). */
export function resolveTarget(w: Webhook, services: ServiceLookup): Target {
  const cc = w.clientConfig;
  if (typeof cc.url === 'string') return { url: new URL(cc.url), shown: new URL(cc.url) };
  const s = cc.service;
  if (!s) throw new Error('neither URL nor service was specified');
  const path = s.path ?? '';
  const withPath = (hostPort: string): URL => new URL(`https://${hostPort}${path.startsWith('/') || !path ? path : `/${path}`}`);
  const servername = `${s.name}.${s.namespace}.svc`;
  const shown = withPath(`${servername}:${s.port ?? 443}`);
  // kube resolves the service when it dials, so failures name the service URL.
  const fail = (why: string): never => {
    throw new ResolveError(shown, why);
  };
  const svc = services(s.namespace, s.name);
  if (!svc) return fail(`service "${s.name}" not found`);
  const spec = (svc.spec ?? {}) as Record<string, any>;
  const port = s.port ?? 443;
  let hostPort: string;
  if (spec.type === 'ExternalName') hostPort = `${bracket(String(spec.externalName))}:${port}`;
  else if (spec.clusterIP === 'None') return fail('cannot route to service with ClusterIP "None"');
  else {
    const sp = ((spec.ports ?? []) as Record<string, any>[]).find((p) => p.port === port);
    if (!sp) return fail(`no service port ${port} found for service "${s.name}"`);
    hostPort = `${bracket(String(spec.clusterIP))}:${port}`;
  }
  return { url: withPath(hostPort), shown, servername };
}

/** A service reference that does not resolve: reported as a failed POST to the service's URL. */
export class ResolveError extends Error {
  constructor(
    readonly shown: URL,
    why: string,
  ) {
    super(why);
  }
}

const bracket = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/**
 * POST `body` and parse the JSON answer. Throws CallError with Go's wording where it matters
 * (`Post "<url>": <cause>`) for connection, TLS, timeout and HTTP-status failures.
 */
/**
 * The connection pool a dispatcher keeps for its webhooks (Node pools per host, port, CA and TLS
 * name). Idle connections are closed after 4 s, before the 5 s keep-alive of common webhook
 * servers (Node's default) closes them under a request; idle sockets never keep the process alive.
 */
export function webhookAgent(): Agent {
  return new Agent({ keepAlive: true, maxFreeSockets: 16, timeout: 4000 });
}

export async function callWebhook(w: Webhook, services: ServiceLookup, body: unknown, agent?: Agent): Promise<unknown> {
  const timeout = `${w.timeoutSeconds}s`;
  let target: Target;
  try {
    target = resolveTarget(w, services);
  } catch (e) {
    if (!(e instanceof ResolveError)) throw new CallError(w.name, `could not get REST client: ${(e as Error).message}`);
    e.shown.searchParams.set('timeout', timeout);
    throw new CallError(w.name, `failed to call webhook: Post ${JSON.stringify(e.shown.toString())}: ${e.message}`);
  }
  const u = new URL(target.url);
  u.searchParams.set('timeout', timeout);
  target.shown.searchParams.set('timeout', timeout);
  const shown = `Post ${JSON.stringify(target.shown.toString())}`;
  const ca = w.clientConfig.caBundle ? Buffer.from(w.clientConfig.caBundle, 'base64') : undefined;
  const payload = Buffer.from(JSON.stringify(body));
  // The whole call (connect, TLS, answer) is bounded by timeoutSeconds, as kube's context is.
  const deadline = Date.now() + w.timeoutSeconds * 1000;
  let retried = false;
  const attempt = (): Promise<unknown> => new Promise((resolve, reject) => {
    const fail = (why: string): void => reject(new CallError(w.name, `failed to call webhook: ${shown}: ${why}`));
    const req = request(
      u,
      {
        method: 'POST',
        ca,
        servername: target.servername ?? (isIP(u.hostname) ? undefined : u.hostname),
        headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': payload.length, 'user-agent': 'kube-apiserver-admission' },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new Error('response too large'));
          else chunks.push(c);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          if (code < 200 || code > 299) {
            // The rest client turns a Status answer into its error; anything else is generic.
            const st = parsed as { kind?: string; message?: string } | undefined;
            const message = st?.kind === 'Status' && st.message ? st.message : genericServerResponse(code, 'POST', unstructuredResponseText(res.headers['content-type'], text)).message;
            reject(new CallError(w.name, `failed to call webhook: ${message}`, code));
            return;
          }
          if (parsed === undefined) {
            reject(new CallError(w.name, `failed to call webhook: ${text.length ? 'invalid character in response body' : 'unexpected end of JSON input'}`));
            return;
          }
          resolve(parsed);
        });
        res.on('error', (e) => fail(e.message));
      },
    );
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('context deadline exceeded'), { code: 'ETIMEDOUT_CTX' })), Math.max(0, deadline - Date.now()));
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A pooled connection the webhook closed just as it was reused: send once more on a new one
      // (Go's transport retries a request that failed on a reused idle connection this way too).
      if (!retried && req.reusedSocket && e.code === 'ECONNRESET') {
        retried = true;
        resolve(attempt());
        return;
      }
      fail(goCause(e, u, target.servername));
    });
    req.end(payload);
  });
  return attempt();
}

/** x509.HostnameError's text, from the certificate's SANs as Node lists them (`DNS:a, IP Address:1.2.3.4`). */
function hostnameError(host: string, sans: string): string {
  const entries = sans.split(', ').filter(Boolean);
  const pick = (prefix: string): string[] => entries.filter((x) => x.startsWith(prefix)).map((x) => x.slice(prefix.length));
  if (isIP(host)) {
    const ips = pick('IP Address:');
    if (!ips.length) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  const names = pick('DNS:');
  if (!names.length) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${names.join(', ')}, not ${host}`;
}

const isIP = (h: string): boolean => /^[\d.]+$/.test(h) || h.includes(':');

/** Go's net/http wording of a failed call, for the causes a webhook call commonly meets. */
export function goCause(e: NodeJS.ErrnoException, u: URL, servername?: string): string {
  const hostPort = `${u.hostname.replace(/^\[|\]$/g, '')}:${u.port || 443}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'ETIMEDOUT_CTX':
    case 'ABORT_ERR':
      return 'context deadline exceeded';
    case 'ENOTFOUND':
      return `dial tcp: lookup ${u.hostname}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: ${hostnameError(servername ?? u.hostname.replace(/^\[|\]$/g, ''), String((e as { cert?: { subjectaltname?: string } }).cert?.subjectaltname ?? ''))}`;
    default:
      return e.message;
  }
}
