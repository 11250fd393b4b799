/**
 * The `kubernetes` Service and Endpoints in namespace `default`, kept as kube-apiserver's
 * bootstrap controller keeps them (pkg/controlplane/controller.go, reconcilers/lease.go):
 *
 * - Service: created when missing with the first address of the service range, port 443 named
 *   `https` targeting the secure port, labels component=apiserver provider=kubernetes; reset when
 *   its ports or type drift (GetMasterServiceUpdateIfNeeded).
 * - Endpoints: the "lease" reconciler. Every replica refreshes a lease record
 *   (`apiserver.internal/masterleases//<advertise address>`, expiring after LEASE_TTL_MS) and
 *   writes the Endpoints as the sorted addresses of every unexpired lease, with this replica's
 *   port. On a clean stop a replica removes its lease and rewrites the Endpoints without itself
 *   (the last one leaves them as they are: kube refuses to erase every address).
 *
 * - EndpointSlice: the EndpointsAdapter's mirror (reconcilers/endpointsadapter.go), written after
 *   every pass over the Endpoints when discovery.k8s.io is served: named `kubernetes`, labelled
 *   kubernetes.io/service-name=kubernetes, the first subset's addresses (ready) and ports;
 *   recreated when its addressType must change, rewritten when endpoints, ports or labels drift.
 *
 * Like kube, an advertise address that Endpoints validation refuses (loopback, link-local) means
 * no Endpoints for this replica (kube's write fails that validation every pass); the Service
 * still exists. Such a replica takes no lease and leaves the Endpoints alone.
 */
import { networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import type { Registry, ServedKind } from '../registry/registry.ts';
import type { Storage } from '../storage/storage.ts';
import { currentPrefix } from '../storage/keys.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { parseIP, specialIPErrors } from '../validation/network.ts';
import { semanticEqual } from '../gocompat/equal.ts';
import { kubernetesServiceIP } from '../registry/core/service.ts';
import { ServiceAllocationRepair } from './service-allocation-repair.ts';

/** kube-apiserver's --endpoint-reconciler interval (EndpointInterval) and lease TTL. */
export const RECONCILE_INTERVAL_MS = 10_000;
export const LEASE_TTL_MS = 15_000;
const LEASE_GROUP = 'apiserver.internal';
const LEASE_RESOURCE = 'masterleases';
const NAME = 'kubernetes';
/** endpointslice.kubernetes.io/skip-mirror: the EndpointSlice mirroring controller leaves it alone. */
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const NAMESPACE = 'default';
/** discovery.LabelServiceName. */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface KubernetesServiceOptions {
  /** The Service's ClusterIP: the first address of --service-cluster-ip-range. */
  serviceIP: string;
  /** The port this server listens on (Service targetPort, Endpoints port). */
  securePort: number;
  /** --advertise-address: the address written into the Endpoints. */
  advertiseAddress: string;
  intervalMs?: number;
}

export class KubernetesServiceController {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private readonly ctx = systemContext('kube-apiserver');
  private readonly services: ServedKind;
  private readonly endpoints: ServedKind;
  private readonly endpointSlices: ServedKind | undefined;
  private lastError = '';
  /** Why this replica's address cannot be published (loopback, link-local…), or '' when it can. */
  private readonly unpublishable: string;

  constructor(private readonly storage: Storage, registry: Registry, private readonly log: Logger, private readonly opts: KubernetesServiceOptions) {
    const svc = registry.lookup('', 'v1', 'services');
    const ep = registry.lookup('', 'v1', 'endpoints');
    if (!svc || !ep) throw new Error('kubernetes service controller: services and endpoints must be registered');
    this.services = svc;
    this.endpoints = ep;
    this.endpointSlices = registry.lookup('discovery.k8s.io', 'v1', 'endpointslices');
    const ip = parseIP(opts.advertiseAddress);
    this.unpublishable = !ip ? 'it is not an IP address' : specialIPErrors(opts.advertiseAddress, ip).join('; ');
  }

  /** First pass (awaited, so the Service exists once the server is ready), then every interval. */
  async start(): Promise<void> {
    if (this.unpublishable) {
      // kube-apiserver tries and logs the 422 every 10 s; the outcome (no address of ours in the
      // Endpoints) is the same, so say it once.
      this.log.info({ advertiseAddress: this.opts.advertiseAddress, why: this.unpublishable }, 'the advertise address cannot be published in the kubernetes Endpoints');
    }
    await this.pass();
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.pass());
    }, this.opts.intervalMs ?? RECONCILE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stop reconciling; drop this replica's lease and its address from the Endpoints. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    if (this.unpublishable) return;
    await this.writeLease(false).catch(() => undefined);
    await this.reconcileEndpoints(false).catch(() => undefined);
  }

  private async pass(): Promise<void> {
    try {
      await this.reconcileService();
      if (this.unpublishable) return;
      await this.writeLease(true);
      await this.reconcileEndpoints(true);
      this.lastError = '';
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      // Logged once per distinct failure (kube logs every pass).
      if (msg !== this.lastError) this.log.warn({ err }, 'reconciling the kubernetes service/endpoints failed; will retry');
      this.lastError = msg;
    }
  }

  private desiredPorts() {
    return [{ name: 'https', protocol: 'TCP', port: 443, targetPort: this.opts.securePort }];
  }

  /** CreateOrUpdateMasterServiceIfNeeded with reconcile=true. */
  async reconcileService(): Promise<void> {
    const current = await this.services.store.getLatest(NAMESPACE, NAME).then(parseObject, (e: unknown) => {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    });
    if (current) {
      const spec = (current.spec ?? {}) as { ports?: unknown[]; type?: string };
      const want = this.desiredPorts();
      const have = (spec.ports ?? []) as Record<string, unknown>[];
      const same =
        spec.type === 'ClusterIP' &&
        have.length === want.length &&
        want.every((w, i) => have[i]?.name === w.name && have[i]?.port === w.port && have[i]?.protocol === w.protocol && have[i]?.targetPort === w.targetPort);
      if (same) return;
      // Replicas must share one secure port (as kube-apiserver's masters must), or they take turns here.
      this.log.warn({ service: `${NAMESPACE}/${NAME}` }, 'resetting the kubernetes service ports and type');
      await this.services.store.update(this.ctx, NAMESPACE, NAME, { ...current, spec: { ...(current.spec as object), ports: want, type: 'ClusterIP' } });
      return;
    }
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: NAME, namespace: NAMESPACE, labels: { provider: 'kubernetes', component: 'apiserver' } },
      spec: { ports: this.desiredPorts(), clusterIP: this.opts.serviceIP, ipFamilyPolicy: 'SingleStack', sessionAffinity: 'None', type: 'ClusterIP' },
    };
    await this.services.store.create(this.ctx, NAMESPACE, svc).catch(async (e: unknown) => {
      // Another replica created it first (AlreadyExists, or its claim on the IP won the race).
      const exists = await this.services.store.getLatest(NAMESPACE, NAME).then(() => true, () => false);
      if (!exists) throw e;
    });
  }

  /** Refresh (alive) or remove (stopping) this replica's lease record. */
  private async writeLease(alive: boolean): Promise<void> {
    const key = { group: LEASE_GROUP, resource: LEASE_RESOURCE, namespace: '', name: this.opts.advertiseAddress };
    for (let attempt = 0; attempt < 3; attempt++) {
      const entry = this.storage.entry(key);
      if (!alive && !entry) return;
      const record = { metadata: { name: key.name }, port: this.opts.securePort, expires: Date.now() + LEASE_TTL_MS };
      const verdict = await this.storage.writeSystem({
        op: !alive ? 'DELETE' : entry ? 'UPDATE' : 'CREATE',
        key,
        object: record,
        verb: alive ? 'lease' : 'release',
        user: 'system:kube-apiserver',
      });
      // AlreadyExists/NotFound: the index changed under us (another writer of this address); retry.
      if (verdict.accepted) return;
    }
  }

  /** Addresses of every replica whose lease has not expired, sorted as kube sorts them. */
  private async liveAddresses(includeSelf: boolean): Promise<string[]> {
    const view = await this.storage.view();
    const out = new Set<string>();
    const now = Date.now();
    try {
      const prefix = currentPrefix(LEASE_GROUP, LEASE_RESOURCE);
      for await (const [, value] of view.scan(prefix, prefixEnd(prefix))) {
        const rec = JSON.parse(value.toString('utf8')) as { metadata: { name: string }; expires: number };
        if (rec.expires > now) out.add(rec.metadata.name);
      }
    } finally {
      await view.close();
    }
    if (includeSelf) out.add(this.opts.advertiseAddress);
    else out.delete(this.opts.advertiseAddress);
    return [...out].sort();
  }

  /**
   * The lease reconciler's doReconcile: one subset with every live address (sorted) and this
   * replica's port, and the skip-mirror label; rewritten only when something differs. With no
   * live address at all (the last replica stopping) kube refuses to erase the Endpoints, and so
   * does this.
   */
  async reconcileEndpoints(includeSelf: boolean): Promise<void> {
    const ips = await this.liveAddresses(includeSelf);
    if (ips.length === 0) return;
    const current = await this.endpoints.store.getLatest(NAMESPACE, NAME).then(parseObject, () => undefined);
    const subsets = [{ addresses: ips.map((ip) => ({ ip })), ports: [{ name: 'https', port: this.opts.securePort, protocol: 'TCP' }] }];
    const labels = current?.metadata.labels ?? {};
    if (!current || labels[SKIP_MIRROR_LABEL] !== 'true' || JSON.stringify(current.subsets) !== JSON.stringify(subsets)) {
      // Unconditional (no resourceVersion): the reconciler's view wins, as kube's Update does.
      const { resourceVersion: _rv, ...meta } = current?.metadata ?? { name: NAME, namespace: NAMESPACE };
      const body: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: { ...meta, labels: { ...labels, [SKIP_MIRROR_LABEL]: 'true' } }, subsets };
      await this.endpoints.store.update(this.ctx, NAMESPACE, NAME, body);
    }
    await this.ensureEndpointSlice(subsets[0]!);
  }

  /** EnsureEndpointSliceFromEndpoints for the Endpoints' one subset. */
  private async ensureEndpointSlice(subset: { addresses: { ip: string }[]; ports: { name: string; port: number; protocol: string }[] }): Promise<void> {
    const slices = this.endpointSlices;
    if (!slices) return;
    const v6 = (ip: string): boolean => parseIP(ip)?.family === 'IPv6';
    const addressType = subset.addresses.every((a) => v6(a.ip)) ? 'IPv6' : 'IPv4';
    const want = {
      labels: { [SERVICE_NAME_LABEL]: NAME },
      endpoints: subset.addresses.filter((a) => v6(a.ip) === (addressType === 'IPv6')).map((a) => ({ addresses: [a.ip], conditions: { ready: true } })),
      ports: subset.ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port })),
    };
    const body: KubeObject = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: NAME, namespace: NAMESPACE, labels: want.labels }, addressType, endpoints: want.endpoints, ports: want.ports };
    const current = await slices.store.getLatest(NAMESPACE, NAME).then(parseObject, (e: unknown) => {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    });
    const ignoreExists = (e: unknown) => {
      if (!(e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
    };
    if (!current) {
      await slices.store.create(this.ctx, NAMESPACE, body).catch(ignoreExists);
      return;
    }
    if (current.addressType !== addressType) {
      await slices.store.delete(this.ctx, NAMESPACE, NAME, {});
      await slices.store.create(this.ctx, NAMESPACE, body);
      return;
    }
    if (semanticEqual(current.endpoints ?? null, want.endpoints) && semanticEqual(current.ports ?? null, want.ports) && semanticEqual(current.metadata.labels ?? null, want.labels)) return;
    // kube's Update replaces the slice with the mirror (its metadata too, resourceVersion aside).
    await slices.store.update(this.ctx, NAMESPACE, NAME, { ...body, metadata: { ...body.metadata, uid: current.metadata.uid } });
  }
}

/** The first key after every key under `prefix` (its trailing '/' bumped to '0'). */
const prefixEnd = (prefix: string): string => prefix.slice(0, -1) + '0';

/** The server flags the Service controllers read (kube-apiserver names). */
export interface ServiceControllerOptions {
  bindAddress: string;
  /** The port actually listened on. */
  securePort: number;
  advertiseAddress?: string;
  serviceClusterIPRange?: string;
}

/**
 * Start the `kubernetes` Service/Endpoints reconciler (first pass awaited) and the allocation
 * repair, when services are served; `stop()` stops both (the reconciler withdraws this replica).
 */
export async function startServiceControllers(storage: Storage, registry: Registry, log: Logger, opts: ServiceControllerOptions): Promise<{ stop(): Promise<void> }> {
  if (!registry.lookup('', 'v1', 'services')) return { stop: async () => undefined };
  const kubernetesService = new KubernetesServiceController(storage, registry, log, {
    serviceIP: kubernetesServiceIP(opts.serviceClusterIPRange),
    securePort: opts.securePort,
    advertiseAddress: opts.advertiseAddress ?? defaultAdvertiseAddress(opts.bindAddress),
  });
  await kubernetesService.start();
  const repair = new ServiceAllocationRepair(storage, log);
  repair.start();
  return {
    async stop() {
      await kubernetesService.stop();
      await repair.stop();
    },
  };
}

/**
 * The default --advertise-address, as kube-apiserver chooses it: the bind address, unless it is
 * unspecified (0.0.0.0 / ::); then the host's first non-internal address (IPv4 preferred, in
 * place of kube's default-route interface), or loopback when there is none.
 */
export function defaultAdvertiseAddress(bindAddress: string): string {
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::' && bindAddress !== '') return bindAddress;
  const all = Object.values(networkInterfaces()).flatMap((l) => l ?? []).filter((a) => !a.internal);
  return all.find((a) => a.family === 'IPv4')?.address ?? all[0]?.address ?? '127.0.0.1';
}
