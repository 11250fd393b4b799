/**
 * Start-up step: serve HTTPS — the handler and its dependencies, the request limiter (Priority and
 * Fairness or max-in-flight), client-CA reloads, the listener (Go's backlog) — and the connection
 * tracking graceful shutdown uses.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type pino from 'pino';
import type { Pki } from '../auth/pki.ts';
import type { Authenticator } from '../auth/authn.ts';
import type { Authorizer } from '../auth/authz.ts';
import { DynamicCaBundle } from '../auth/client-ca.ts';
import { secureServerOptions } from '../auth/tls-options.ts';
import type { Storage } from '../storage/storage.ts';
import type { Registry } from '../registry/registry.ts';
import type { WatchHub } from '../watch/hub.ts';
import type { Auditor } from '../audit/auditor.ts';
import { ApiMetrics } from '../metrics/api-metrics.ts';
import { InflightRequests } from '../http/inflight.ts';
import { createHandler, createServer, type ServerDeps } from '../http/server.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../http/timeout.ts';
import { holdDuringConnectionBursts, maxInflight, priorityAndFairness, type RequestLimiter } from '../http/flowcontrol-filter.ts';
import { FlowController } from '../flowcontrol/controller.ts';
import { MaxInflightLimiter } from '../flowcontrol/max-inflight.ts';
import { WatchTracker, WorkEstimator } from '../flowcontrol/work-estimator.ts';
import { flowControlMetrics } from '../metrics/flowcontrol-metrics.ts';
import type { OpenIdDiscovery } from '../http/openid-discovery.ts';
import type { APIServiceIndex } from '../http/aggregator.ts';
import type { ClientTrust } from './authentication.ts';
import type { ServerOptions } from './options.ts';
import { threadShare } from './workers.ts';

export interface ServeDeps {
  pki: Pki;
  trust: ClientTrust;
  storage: Storage;
  registry: Registry;
  hub: WatchHub;
  authenticator: Authenticator;
  authorizer: Authorizer;
  health: ServerDeps['health'];
  log: pino.Logger;
  metrics: ApiMetrics;
  auditor: Auditor | undefined;
  /** The service-account issuer discovery documents for an external address (undefined: not served). */
  openIdDiscovery: (externalAddress: () => string) => OpenIdDiscovery | undefined;
  /** A client-CA bundle file changed (after new connections are asked for the new CAs). */
  onCaReload: () => void;
  /** The APIServices (the aggregator's proxy and discovery). */
  aggregator?: APIServiceIndex;
}

export interface Serving {
  server: ReturnType<typeof createServer>;
  /** The listening port (`--secure-port 0` has become a real one). */
  port: number;
  inflight: InflightRequests;
  connections: ReturnType<typeof trackConnections>;
  /** Priority and Fairness's limiter (absent with max-in-flight): the APF config controller configures it. */
  flowController?: FlowController;
  /** Set once the external address is known (/api's serverAddressByClientCIDRs, issuer discovery). */
  setAdvertiseAddress(hostPort: string): void;
  /** Stop the CA bundle watches and the connection-burst hold. */
  close(): void;
}

/** How long a request for a kind this replica does not serve waits for its fold to catch up (http/server.ts). */
const CATCH_UP_MS = 3_000;

/** Build the handler, listen, and start tracking connections. */
export async function serve(opts: ServerOptions, d: ServeDeps): Promise<Serving> {
  const inflight = new InflightRequests();
  const { storage, trust, pki, metrics } = d;
  // advertiseAddress (/api's serverAddressByClientCIDRs) is read per request; it is set to the
  // external host:port once `--secure-port 0` has become a real port.
  const deps: ServerDeps = {
    registry: d.registry,
    hub: d.hub,
    folded: () => storage.folded,
    authenticator: d.authenticator,
    authorizer: d.authorizer,
    health: d.health,
    log: d.log,
    advertiseAddress: `${opts.bindAddress}:${opts.securePort}`,
    metrics,
    inflight,
    audit: d.auditor,
    aggregator: d.aggregator,
    requestTimeoutMs: opts.requestTimeoutMs,
    minRequestTimeoutS: opts.minRequestTimeoutS,
    // Kafka mode: a kind another replica serves already (its CRD's event not folded here yet).
    // Bounded: with the brokers away, an unknown path is still a 404 within CATCH_UP_MS.
    catchUp: () => Promise.race([storage.latest(CATCH_UP_MS), new Promise((resolve) => setTimeout(resolve, CATCH_UP_MS).unref())]),
  };
  const limiting = requestLimiter(opts, metrics, () => storageObjectCounts(storage.materializer.objectCounts()));
  deps.limiter = limiting?.limiter;
  deps.openIdDiscovery = d.openIdDiscovery(() => deps.advertiseAddress);
  const server = createServer(pki, createHandler(deps), trust.tlsCas());
  const bursts = limiting?.controller ? holdDuringConnectionBursts(server, (held) => limiting.controller!.holdDispatch(held)) : null;
  // A reloaded bundle: new connections are asked for the new CAs, and the ConfigMap follows.
  const bundles = [trust.clientCA, trust.requestHeader?.ca].filter((b): b is DynamicCaBundle => b instanceof DynamicCaBundle);
  for (const b of bundles) {
    b.onChange(() => {
      server.setSecureContext(secureServerOptions(pki, trust.tlsCas()));
      d.onCaReload();
      d.log.info({ file: b.path }, 'CA bundle reloaded');
    });
    b.start();
  }
  // Go's listen backlog (the kernel's somaxconn) rather than Node's 511: connections that arrive in a
  // burst wait to be accepted, and then get an answer (a 429 at worst), instead of a reset.
  // `--workers N`: every serving thread listens on the same port; the kernel spreads connections.
  server.listen({ port: opts.securePort, host: opts.bindAddress, backlog: listenBacklog(), ...((opts.workers ?? 1) > 1 ? { reusePort: true } : {}) });
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as AddressInfo).port,
    inflight,
    flowController: limiting?.controller,
    connections: trackConnections(server),
    setAdvertiseAddress(hostPort) {
      deps.advertiseAddress = hostPort;
    },
    close() {
      for (const b of bundles) b.stop();
      bursts?.close();
    },
  };
}

/** Longest graceful shutdown waits for short requests (kube's http.Server ShutdownTimeout: 60 s). */
export const SHUTDOWN_REQUEST_TIMEOUT_MS = 60_000;
/** How long ended streams get to flush to slow clients before their connections are cut. */
export const SHUTDOWN_DRAIN_MS = 2_000;

/**
 * The open connections of a server, for graceful shutdown, as Go's http.Server.Shutdown treats
 * them: `goAway` tells HTTP/2 clients to open no more streams here (streams in flight complete),
 * closes idle HTTP/1.1 keep-alive connections and makes busy ones close after their current
 * response, so no new request can arrive once the listener is closed. `drain` closes what is left
 * once every response has ended — gracefully first, forcibly after `ms`.
 */
export function trackConnections(server: ReturnType<typeof createServer>): { goAway(): void; drain(ms: number): Promise<void> } {
  type Socket = import('node:net').Socket;
  const sockets = new Set<Socket>();
  const sessions = new Set<import('node:http2').Http2Session>();
  /** HTTP/1.1 sockets → requests being answered on them. */
  const busy = new Map<Socket, number>();
  let draining = false;
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => {
      sockets.delete(s);
      busy.delete(s);
    });
  });
  server.on('session', (s: import('node:http2').Http2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  server.on('request', (req: { httpVersionMajor: number; socket: Socket }, res: import('node:http').ServerResponse) => {
    if (req.httpVersionMajor !== 1) return;
    const s = req.socket;
    busy.set(s, (busy.get(s) ?? 0) + 1);
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    res.once('close', () => {
      const n = (busy.get(s) ?? 1) - 1;
      busy.set(s, n);
      if (draining && n === 0) s.end();
    });
  });
  const h2Sockets = (): Set<unknown> => new Set([...sessions].map((x) => x.socket));
  return {
    goAway() {
      draining = true;
      for (const s of sessions) if (!s.closed && !s.destroyed) s.close();
      const h2 = h2Sockets();
      for (const s of sockets) if (!h2.has(s) && !busy.get(s)) s.end();
    },
    async drain(ms) {
      draining = true;
      for (const s of sessions) if (!s.closed && !s.destroyed) s.close();
      for (const s of sockets) s.end();
      if (sockets.size === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const s of sockets) s.destroy();
          resolve();
        }, ms);
        timer.unref();
        const check = (): void => {
          if (sockets.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        };
        for (const s of sockets) s.once('close', () => setImmediate(check));
      });
    },
  };
}

/** How often the LIST work estimator's object counts are refreshed (kube: every minute). */
const OBJECT_COUNT_REFRESH_MS = 1000;

/**
 * The request limiter the flags ask for: Priority and Fairness over the limits' sum, with kube's
 * queue wait limit of a quarter of the request timeout, or the max-in-flight filter.
 */
export function requestLimiter(opts: ServerOptions, metrics: ApiMetrics, objectCounts: () => Map<string, number>): { limiter: RequestLimiter; controller?: FlowController } | undefined {
  // `--workers N`: each serving thread limits its own requests, so each takes an equal share of
  // the limits (rounded up; 0 stays "no limit"), and the process as a whole keeps kube's totals.
  const share = (n: number): number => threadShare(n, opts);
  const readOnly = share(opts.maxRequestsInflight ?? 400);
  const mutating = share(opts.maxMutatingRequestsInflight ?? 200);
  // --request-timeout: kube's queue wait limit is a quarter of it (a queued request's deadline is timeout.ts's).
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (opts.enablePriorityAndFairness === false) return readOnly === 0 && mutating === 0 ? undefined : { limiter: maxInflight(new MaxInflightLimiter(readOnly, mutating)) };
  // APF shares out each priority level's seats (of kube's whole-server figure) instead.
  const serverLimit = (opts.maxRequestsInflight ?? 400) + (opts.maxMutatingRequestsInflight ?? 200);
  const controller = new FlowController({ serverConcurrencyLimit: serverLimit, threadShare: share, requestWaitLimitMs: requestTimeout / 4, observer: flowControlMetrics(metrics.registry) });
  let counts = new Map<string, number>();
  let countedAt = -Infinity;
  const objectCount = (groupResource: string): number | undefined => {
    const now = performance.now();
    if (now - countedAt > OBJECT_COUNT_REFRESH_MS) {
      counts = objectCounts();
      countedAt = now;
    }
    return counts.get(groupResource);
  };
  const watches = new WatchTracker();
  return { limiter: priorityAndFairness({ controller, estimator: new WorkEstimator(objectCount, watches), watches }), controller };
}

/** Go's listen backlog: /proc/sys/net/core/somaxconn (at most 65535), else 4096. */
export function listenBacklog(): number {
  try {
    const n = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());
    if (Number.isInteger(n) && n > 0) return Math.min(n, 65535);
  } catch {
    // not Linux: Go's default
  }
  return 4096;
}

/**
 * apiserver_storage_objects' `resource` label from storage's `<group>/<resource>` counts: the
 * plural for the core group (`configmaps`), `<plural>.<group>` otherwise (kube's
 * GroupResource.String()).
 */
export function storageObjectCounts(byPath: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [path, n] of byPath) {
    const [group, resource] = path.split('/') as [string, string];
    out.set(group === 'core' ? resource : `${resource}.${group}`, n);
  }
  return out;
}
