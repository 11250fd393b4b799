/**
 * kube-aggregator 0.24's AvailableConditionController (pkg/controllers/status/available_controller.go):
 * the `Available` condition of every APIService.
 *
 * - no service: True, `Local`, "Local APIServices are always available";
 * - the Service missing: False `ServiceNotFound` "service/<name> in "<ns>" is not present";
 * - a ClusterIP Service: the APIService's port must be one of its ports (else False
 *   `ServicePortError`), its Endpoints must exist (else False `EndpointsNotFound`) and have an
 *   address in a subset with that port's name (else False `MissingEndpoints`);
 * - then the discovery check: GET https://<resolved>/apis/<group>/<version> (`/api/v1` for `v1.`)
 *   as `system:kube-aggregator` in `system:masters` (X-Remote-* headers), without verifying the
 *   backend's certificate, with the front-proxy client pair, in 5 s: a 2xx is True `Passed` "all
 *   checks passed", anything else False `FailedDiscoveryCheck` with Go's error text.
 *
 * The condition's lastTransitionTime changes only with its status; nothing is written when the
 * status is unchanged. Triggers as kube's informers: an APIService added or changed, a Service or
 * Endpoints an APIService names changed, and every APIService every 30 s (the resync). Each check
 * is five GETs at once, as kube's: the first success passes, else the last failure is reported.
 */
import https from 'node:https';
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { goCause } from '../admission/webhook/client.ts';
import { joinHostPort, resolveService, type APIServiceIndex, type ProxyClientCert } from '../http/aggregator.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';

/** kube's resync period of the APIService informer. */
export const RESYNC_MS = 30_000;
/** The discovery client's timeout. */
const DISCOVERY_TIMEOUT_MS = 5_000;

type Json = Record<string, any>;

export interface AvailableCondition {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** The discovery GET; resolves with null on a 2xx, else the error text kube records. */
export function discoveryCheck(host: string, port: number, path: string, client?: ProxyClientCert): Promise<string | null> {
  const url = `https://${joinHostPort(host, port)}${path}`;
  return new Promise((resolve) => {
    const req = https.request(
      {
        host,
        port,
        path,
        method: 'GET',
        rejectUnauthorized: false,
        cert: client?.cert,
        key: client?.key,
        headers: { 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters', 'User-Agent': 'Go-http-client/1.1', 'Accept-Encoding': 'gzip' },
        agent: false,
        timeout: DISCOVERY_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 300 ? null : `failing or missing response from ${url}: bad status from ${url}: ${code}`);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'CLIENT_TIMEOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => {
      const why = e.code === 'CLIENT_TIMEOUT' ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' : goCause(e, new URL(url));
      resolve(`failing or missing response from ${url}: Get "${url}": ${why}`);
    });
    req.end();
  });
}

/** kube's attempts per check, run at once: the first success passes, else the last failure is reported. */
const ATTEMPTS = 5;

export function discoveryChecks(host: string, port: number, path: string, client?: ProxyClientCert): Promise<string | null> {
  return new Promise((resolve) => {
    let failed = 0;
    for (let i = 0; i < ATTEMPTS; i++) {
      void discoveryCheck(host, port, path, client).then((err) => {
        if (err === null) resolve(null);
        else if (++failed === ATTEMPTS) resolve(err);
      });
    }
  });
}

export class APIServiceAvailability extends QueueController<{ key: string }> {
  private readonly ctx = systemContext('kube-apiserver');
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    storage: Storage,
    private readonly registry: Registry,
    private readonly apiServices: ServedKind,
    private readonly index: APIServiceIndex,
    log: Logger,
  ) {
    super('apiservice-status-available-controller', storage, log, (item) => this.sync(item.key), (item, err) => log.warn({ err, apiservice: item.key }, 'APIService availability check failed'));
  }

  static create(storage: Storage, registry: Registry, index: APIServiceIndex | undefined, log: Logger): APIServiceAvailability | null {
    const served = registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices');
    return served && index ? new APIServiceAvailability(storage, registry, served, index, log) : null;
  }

  protected observe(c: Change): void {
    if (c.key.group === 'apiregistration.k8s.io' && c.key.resource === 'apiservices') {
      if (c.type !== 'DELETED') this.queue.add({ key: c.key.name });
      return;
    }
    if (c.key.group !== '' || (c.key.resource !== 'services' && c.key.resource !== 'endpoints')) return;
    for (const g of this.index.sortedGroups()) {
      for (const e of g) if (e.service && e.service.namespace === c.key.namespace && e.service.name === c.key.name) this.queue.add({ key: e.name });
    }
  }

  protected async scan(): Promise<void> {
    await this.scanUntilDone('APIService availability scan', async () => {
      for await (const b of listAll(this.apiServices.reader, '')) this.queue.add({ key: parseObject(b).metadata.name! });
    });
    this.timer = setInterval(() => {
      for (const g of this.index.sortedGroups()) for (const e of g) this.queue.add({ key: e.name });
    }, RESYNC_MS);
    this.timer.unref();
  }

  override stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    super.stop();
  }

  private async read(resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    const served = this.registry.lookup('', 'v1', resource);
    if (!served) return undefined;
    try {
      return parseObject(await served.reader.get(namespace, name));
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** The condition kube's sync computes for this APIService. */
  async condition(o: KubeObject): Promise<AvailableCondition> {
    const spec = (o.spec ?? {}) as Json;
    if (!spec.service) return { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
    const ref = { namespace: String(spec.service.namespace ?? ''), name: String(spec.service.name ?? ''), port: Number(spec.service.port ?? 443) };
    const svc = await this.read('services', ref.namespace, ref.name);
    if (!svc) return { status: 'False', reason: 'ServiceNotFound', message: `service/${ref.name} in ${JSON.stringify(ref.namespace)} is not present` };
    const sspec = (svc.spec ?? {}) as Json;
    if ((sspec.type ?? 'ClusterIP') === 'ClusterIP') {
      const port = ((sspec.ports ?? []) as Json[]).find((p) => p.port === ref.port);
      if (!port) return { status: 'False', reason: 'ServicePortError', message: `service/${ref.name} in ${JSON.stringify(ref.namespace)} is not listening on port ${ref.port}` };
      const portName = String(port.name ?? '');
      const eps = await this.read('endpoints', ref.namespace, ref.name);
      if (!eps) return { status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpoints for service/${ref.name} in ${JSON.stringify(ref.namespace)}` };
      const active = ((eps.subsets ?? []) as Json[]).some((s) => (s.addresses ?? []).length > 0 && ((s.ports ?? []) as Json[]).some((p) => String(p.name ?? '') === portName));
      if (!active) return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for service/${ref.name} in ${JSON.stringify(ref.namespace)} have no addresses with port name ${JSON.stringify(portName)}` };
    }
    const loc = resolveService(svc, ref);
    const path = o.metadata.name === 'v1.' ? `/api/${spec.version}` : `/apis/${spec.group}/${spec.version}`;
    const failure = 'error' in loc ? loc.error : await discoveryChecks(loc.host, loc.port, path, this.index.proxyClient);
    if (failure !== null) return { status: 'False', reason: 'FailedDiscoveryCheck', message: failure };
    return { status: 'True', reason: 'Passed', message: 'all checks passed' };
  }

  private async sync(name: string): Promise<void> {
    let o: KubeObject;
    try {
      o = parseObject(await this.apiServices.reader.get('', name));
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err;
    }
    const want = await this.condition(o);
    const status = (o.status ?? {}) as Json;
    const conditions = [...((status.conditions ?? []) as Json[])];
    const i = conditions.findIndex((c) => c.type === 'Available');
    const old = i >= 0 ? conditions[i]! : undefined;
    if (old && old.status === want.status && old.reason === want.reason && old.message === want.message) return;
    // SetAPIServiceCondition: the transition time moves only with the status.
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const next = { type: 'Available', status: want.status, lastTransitionTime: old && old.status === want.status ? old.lastTransitionTime : now, reason: want.reason, message: want.message };
    if (i >= 0) conditions[i] = next;
    else conditions.push(next);
    o.status = { ...status, conditions };
    await this.apiServices.store.update(this.ctx, '', name, o, 'status');
  }
}
