/**
 * The Service write hooks: ClusterIP and NodePort allocation as kube-apiserver's Service storage
 * does it (pkg/registry/core/service/storage: beginCreate, beginUpdate, afterDelete, alloc.go),
 * for a single-stack cluster. Values are claimed through service-alloc.ts.
 */
import type { KubeObject } from '../../api/types.ts';
import { invalid as invalidStatus, internalError } from '../../api/errors.ts';
import { type FieldError, FieldPath, invalid } from '../../api/field-errors.ts';
import type { FinishFunc, HookDeps, WriteHooks } from '../rest/strategy.ts';
import { type IPFamily, parseIP } from '../../validation/network.ts';
import { isPlainObject } from './configmap.ts';
import { AllocationError, type AllocationOwner, IPAllocator, PortAllocator } from './service-alloc.ts';
import { deleteEndpointsOf } from './endpoints.ts';
import {
  type ServiceSpec,
  DEFAULT_SERVICE_CLUSTER_IP_RANGE,
  DEFAULT_SERVICE_NODE_PORT_RANGE,
  arr,
  isHeadless,
  needsClusterIP,
  needsHealthCheck,
  needsNodePort,
  nodePortsOf,
  normalizeClusterIPs,
  num,
  patchAllocatedValues,
  sameStrings,
  serviceSpec,
  shouldAllocateNodePorts,
} from './service-spec.ts';
import { specPath, validateClusterIPsRelatedFields } from './service-validation.ts';

/** The Service's uid: the owner its allocation records name (set before the hooks run). */
const uidOf = (o: KubeObject): string => o.metadata.uid ?? '';

const serviceInvalid = (obj: KubeObject, errs: FieldError[]) => invalidStatus('Service', '', obj.metadata.name ?? '', errs);

/** Undo/confirm steps collected while allocating; run in order by the FinishFunc. */
interface Txn {
  onSuccess: (() => Promise<void>)[];
  onFailure: (() => Promise<void>)[];
}

const finisher = (txn: Txn): FinishFunc => async (success) => {
  for (const step of success ? txn.onSuccess : txn.onFailure) await step().catch(() => undefined);
};

/** The Service hooks: ClusterIP and NodePort allocation (kube's storage/alloc.go). */
export class ServiceAllocators implements WriteHooks {
  readonly ips: IPAllocator;
  readonly ports: PortAllocator;

  constructor(private readonly deps: HookDeps) {
    this.ips = new IPAllocator(deps.storage, deps.options.serviceClusterIPRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE);
    this.ports = new PortAllocator(deps.storage, deps.options.serviceNodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE);
  }

  private get family(): IPFamily {
    return this.ips.family;
  }

  async beginCreate(obj: KubeObject, dryRun: boolean): Promise<FinishFunc> {
    const s = serviceSpec(obj);
    normalizeClusterIPs(s, null);
    const txn: Txn = { onSuccess: [], onFailure: [] };
    try {
      this.initIPFamilyFields(obj, null);
      await this.allocClusterIPs(obj, dryRun, txn);
      if (needsNodePort(s)) await this.initNodePorts(obj, dryRun, txn);
      if (needsHealthCheck(s)) await this.allocHealthCheckNodePort(obj, dryRun, txn);
    } catch (e) {
      await finisher(txn)(false);
      throw e;
    }
    return finisher(txn);
  }

  async beginUpdate(newObj: KubeObject, oldObj: KubeObject, dryRun: boolean): Promise<FinishFunc> {
    const s = serviceSpec(newObj);
    const old = serviceSpec(oldObj);
    patchAllocatedValues(s, old);
    normalizeClusterIPs(s, old);
    const txn: Txn = { onSuccess: [], onFailure: [] };
    try {
      this.initIPFamilyFields(newObj, oldObj);
      // ClusterIPs: only a move from/to ExternalName allocates or releases (single-stack server).
      if (old.type === 'ExternalName' && s.type !== 'ExternalName') await this.allocClusterIPs(newObj, dryRun, txn);
      else if (!isHeadless(old) && old.type !== 'ExternalName' && s.type === 'ExternalName' && !dryRun) {
        for (const ip of arr(old.clusterIPs)) txn.onSuccess.push(() => this.ips.release(ip, uidOf(newObj)));
      }
      if (needsNodePort(old) && !needsNodePort(s) && !dryRun) {
        for (const np of nodePortsOf(old)) txn.onSuccess.push(() => this.ports.release(np, uidOf(newObj)));
      }
      if (needsNodePort(s)) await this.updateNodePorts(newObj, old, dryRun, txn);
      if (!needsHealthCheck(old) && needsHealthCheck(s)) await this.allocHealthCheckNodePort(newObj, dryRun, txn);
      else if (needsHealthCheck(old) && !needsHealthCheck(s) && old.healthCheckNodePort && !dryRun) {
        const hc = old.healthCheckNodePort;
        txn.onSuccess.push(() => this.ports.release(hc, uidOf(newObj)));
      }
    } catch (e) {
      await finisher(txn)(false);
      throw e;
    }
    return finisher(txn);
  }

  async afterDelete(obj: KubeObject): Promise<void> {
    const s = serviceSpec(obj);
    // kube deletes the Service's Endpoints too, so a new Service of that name starts clean.
    await deleteEndpointsOf(this.deps.storage, obj.metadata.namespace ?? '', obj.metadata.name ?? '').catch(() => undefined);
    if (needsClusterIP(s) && !isHeadless(s)) for (const ip of arr(s.clusterIPs)) await this.ips.release(ip, uidOf(obj)).catch(() => undefined);
    for (const np of nodePortsOf(s)) await this.ports.release(np, uidOf(obj)).catch(() => undefined);
    if (needsHealthCheck(s) && s.healthCheckNodePort) await this.ports.release(s.healthCheckNodePort, uidOf(obj)).catch(() => undefined);
  }

  /** alloc.initIPFamilyFields for a single-stack cluster. Throws 422 with kube's messages. */
  private initIPFamilyFields(obj: KubeObject, oldObj: KubeObject | null): void {
    const s = serviceSpec(obj);
    const old = oldObj ? serviceSpec(oldObj) : null;
    if (s.type === 'ExternalName') return;
    if (s.ipFamilyPolicy === undefined) {
      if (old?.ipFamilyPolicy !== undefined) s.ipFamilyPolicy = old.ipFamilyPolicy;
      else s.ipFamilyPolicy = s.clusterIP === 'None' && !s.selector ? 'RequireDualStack' : 'SingleStack';
    }
    const related = validateClusterIPsRelatedFields(s);
    if (related.length) throw serviceInvalid(obj, related);
    const errs: FieldError[] = [];
    const policyPath = specPath.child('ipFamilyPolicy');
    if (old) {
      if (s.ipFamilyPolicy === 'SingleStack') {
        if (sameStrings(old.clusterIPs, s.clusterIPs) && arr(s.clusterIPs).length > 1) s.clusterIPs = s.clusterIPs!.slice(0, 1);
        if (sameStrings(old.ipFamilies, s.ipFamilies) && arr(s.ipFamilies).length > 1) s.ipFamilies = s.ipFamilies!.slice(0, 1);
      } else {
        if (arr(s.clusterIPs).length < arr(old.clusterIPs).length) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
        if (arr(s.ipFamilies).length < arr(old.ipFamilies).length) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
    if (s.ipFamilyPolicy === 'SingleStack') {
      if (arr(s.clusterIPs).length === 2) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      if (arr(s.ipFamilies).length === 2) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
    const ips = arr(s.clusterIPs);
    for (let i = 0; i < ips.length; i++) {
      if (ips[i] === 'None') break;
      const fam = parseIP(ips[i]!)!.family;
      if (i >= arr(s.ipFamilies).length) {
        if (fam !== this.family) errs.push(invalid(specPath.child('clusterIPs').index(i), ips, `${fam} is not configured on this cluster`));
        else s.ipFamilies = [...arr(s.ipFamilies), fam];
      }
    }
    if (errs.length) throw serviceInvalid(obj, errs);
    if (s.clusterIP === 'None' && !s.selector) {
      if (arr(s.ipFamilies).length === 0) s.ipFamilies = [this.family];
      if (s.ipFamilies!.length < 2 && s.ipFamilyPolicy !== 'SingleStack') s.ipFamilies!.push(s.ipFamilies![0] === 'IPv4' ? 'IPv6' : 'IPv4');
      return;
    }
    if (s.ipFamilyPolicy === 'RequireDualStack') errs.push(invalid(policyPath, s.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    arr(s.ipFamilies).forEach((f, i) => {
      if (f !== this.family) errs.push(invalid(specPath.child('ipFamilies').index(i), f, 'not configured on this cluster'));
    });
    if (errs.length) throw serviceInvalid(obj, errs);
    if (arr(s.ipFamilies).length === 0) s.ipFamilies = [this.family];
  }

  private owner(obj: KubeObject): AllocationOwner {
    return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
  }

  /** alloc.allocClusterIPs: the requested IP, or the next free one. */
  private async allocClusterIPs(obj: KubeObject, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    if (s.type === 'ExternalName' || arr(s.clusterIPs)[0] === 'None') return;
    const want = arr(s.clusterIPs)[0] ?? '';
    let ip: string;
    if (!want) {
      try {
        ip = await this.ips.allocateNext(this.owner(obj), dryRun);
      } catch (e) {
        if (e instanceof AllocationError) throw internalError(`failed to allocate a serviceIP: ${e.message}`);
        throw e;
      }
    } else {
      try {
        await this.ips.allocate(want, this.owner(obj), dryRun);
      } catch (e) {
        if (e instanceof AllocationError) throw serviceInvalid(obj, [invalid(specPath.child('clusterIPs'), arr(s.clusterIPs), `failed to allocate IP ${want}: ${e.message}`)]);
        throw e;
      }
      ip = want;
    }
    if (!dryRun) txn.onFailure.push(() => this.ips.release(ip, uidOf(obj)));
    s.clusterIPs = [ip, ...arr(s.clusterIPs).slice(1)];
    s.clusterIP = ip;
  }

  private async claimPort(obj: KubeObject, port: number, path: FieldPath, dryRun: boolean, txn: Txn): Promise<void> {
    try {
      await this.ports.allocate(port, this.owner(obj), dryRun);
    } catch (e) {
      if (e instanceof AllocationError) throw serviceInvalid(obj, [invalid(path, port, e.message)]);
      throw e;
    }
    if (!dryRun) txn.onFailure.push(() => this.ports.release(port, uidOf(obj)));
  }

  private async nextPort(obj: KubeObject, dryRun: boolean, txn: Txn, what = 'a nodePort'): Promise<number> {
    let port: number;
    try {
      port = await this.ports.allocateNext(this.owner(obj), dryRun);
    } catch (e) {
      if (e instanceof AllocationError) throw internalError(`failed to allocate ${what}: ${e.message}`);
      throw e;
    }
    if (!dryRun) txn.onFailure.push(() => this.ports.release(port, uidOf(obj)));
    return port;
  }

  /** alloc.initNodePorts: ports sharing a port number (TCP+UDP 53) share one NodePort. */
  private async initNodePorts(obj: KubeObject, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    const ports = arr(s.ports);
    const byServicePort = new Map<number, number>();
    for (let i = 0; i < ports.length; i++) {
      const sp = ports[i]!;
      if (!isPlainObject(sp)) continue;
      if (num(sp.nodePort) === 0 && !shouldAllocateNodePorts(s)) continue;
      const path = specPath.child('ports').index(i).child('nodePort');
      const already = byServicePort.get(num(sp.port)) ?? 0;
      if (already === 0) {
        const requested = ports.find((p) => isPlainObject(p) && num(p.port) === num(sp.port) && num(p.nodePort) !== 0)?.nodePort ?? 0;
        if (requested !== 0) {
          await this.claimPort(obj, requested, path, dryRun, txn);
          sp.nodePort = requested;
        } else {
          sp.nodePort = await this.nextPort(obj, dryRun, txn);
        }
        byServicePort.set(num(sp.port), num(sp.nodePort));
      } else if (num(sp.nodePort) !== already) {
        if (num(sp.nodePort) === 0) sp.nodePort = already;
        else await this.claimPort(obj, num(sp.nodePort), path, dryRun, txn);
      }
    }
  }

  /** alloc.updateNodePorts: claim new ones, release those no longer used once the write lands. */
  private async updateNodePorts(obj: KubeObject, old: ServiceSpec, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    const oldPorts = nodePortsOf(old);
    const claimed = new Set<number>();
    const ports = arr(s.ports);
    for (let i = 0; i < ports.length; i++) {
      const sp = ports[i]!;
      if (!isPlainObject(sp)) continue;
      if (num(sp.nodePort) === 0 && !shouldAllocateNodePorts(s)) continue;
      if (num(sp.nodePort) !== 0) {
        if (!oldPorts.includes(num(sp.nodePort)) && !claimed.has(num(sp.nodePort))) {
          await this.claimPort(obj, num(sp.nodePort), specPath.child('ports').index(i).child('nodePort'), dryRun, txn);
          claimed.add(num(sp.nodePort));
        }
      } else {
        sp.nodePort = await this.nextPort(obj, dryRun, txn);
      }
    }
    const now = nodePortsOf(s);
    if (!dryRun) for (const np of oldPorts) if (!now.includes(np)) txn.onSuccess.push(() => this.ports.release(np, uidOf(obj)));
  }

  private async allocHealthCheckNodePort(obj: KubeObject, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    const want = num(s.healthCheckNodePort);
    if (want !== 0) {
      try {
        await this.ports.allocate(want, this.owner(obj), dryRun);
      } catch (e) {
        if (e instanceof AllocationError) throw internalError(`failed to allocate requested HealthCheck NodePort ${want}: ${e.message}`);
        throw e;
      }
      if (!dryRun) txn.onFailure.push(() => this.ports.release(want, uidOf(obj)));
    } else {
      s.healthCheckNodePort = await this.nextPort(obj, dryRun, txn, 'a HealthCheck NodePort 0');
    }
  }
}

