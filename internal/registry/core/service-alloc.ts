/**
 * ClusterIP and NodePort allocators for Services (kube: pkg/registry/core/service/ipallocator and
 * portallocator), safe across replicas that share one log.
 *
 * Scheme: one internal record per allocated value, claimed with a CREATE intent on its own key
 * (`allocations.apiserver.internal/serviceips//10.0.0.7`, `…/servicenodeports//30080`) and
 * released with a DELETE. The fold rejects the second CREATE of a key with AlreadyExists, in log
 * order, on every replica — so two replicas racing for one IP get exactly one acceptance, with no
 * lock and no clock. kube-apiserver keeps one RangeAllocation bitmap per range instead and writes
 * it with a resourceVersion precondition; on this log that would make every allocation in the
 * cluster contend on (and retry against) one key, while per-value keys only collide when two
 * writers pick the same value. (Kubernetes 1.27's IPAddress objects use the same one-object-per-IP
 * shape.) Picking a value reads the in-memory key index; a stale index only costs a rejected
 * CREATE and a step to the next candidate.
 *
 * A process dying between claiming a value and writing its Service leaks the value; like kube's
 * repair controllers, internal/controllers/service-allocation-repair.ts releases records that no
 * Service has held for several passes.
 *
 * Example (range 10.0.0.0/24): AllocateNext picks a random offset, say 6 → 10.0.0.7; the index has
 * no `…/serviceips//10.0.0.7`; CREATE → accepted → the Service gets 10.0.0.7. A concurrent
 * replica that also picked 10.0.0.7 gets AlreadyExists from the fold and tries 10.0.0.8.
 */
import { randomInt } from 'node:crypto';
import type { Storage, ObjectKey } from '../../storage/storage.ts';
import { type IPFamily, type ParsedCIDR, formatIP, parseCIDR, parseIP } from '../../validation/network.ts';

/** API group of the allocation records: not served, only stored. */
export const ALLOCATION_GROUP = 'allocations.apiserver.internal';
/** Resources of the records: ClusterIPs (named by canonical address) and NodePorts (by number). */
export const IP_RECORDS = 'serviceips';
export const PORT_RECORDS = 'servicenodeports';

/**
 * Delete one allocation record if it is still at version `rv` (a re-claim in between makes the
 * fold answer Conflict and the record stays). Resolves to whether it was deleted.
 */
export async function deleteAllocationRecord(storage: AllocationStorage, resource: string, name: string, rv: number | null): Promise<boolean> {
  const record = { apiVersion: `${ALLOCATION_GROUP}/v1`, kind: 'Allocation', metadata: { name }, owner: null };
  const verdict = await storage.writeSystem({
    op: 'DELETE',
    key: { group: ALLOCATION_GROUP, resource, namespace: '', name },
    expectRv: rv,
    object: record,
    verb: 'release',
  });
  return verdict.accepted;
}

/** Why an allocation failed; messages are kube's (ipallocator / portallocator errors). */
export class AllocationError extends Error {
  constructor(readonly code: 'full' | 'allocated' | 'notInRange', message: string) {
    super(message);
  }
}

/** Who holds a value (for people reading the records). */
export interface AllocationOwner {
  namespace: string;
  name: string;
  uid: string;
}

/** The storage calls an allocator needs. */
export type AllocationStorage = Pick<Storage, 'writeSystem' | 'entry' | 'get'>;

/**
 * A range of `size` values, offsets 0..size-1, each stored as its own record named by `nameOf`.
 */
class RecordRange {
  constructor(
    private readonly storage: AllocationStorage,
    private readonly resource: string,
    readonly size: number,
    private readonly nameOf: (offset: number) => string,
    private readonly messages: { allocated: string; notInRange: string },
  ) {}

  private key(offset: number): ObjectKey {
    return { group: ALLOCATION_GROUP, resource: this.resource, namespace: '', name: this.nameOf(offset) };
  }

  has(offset: number): boolean {
    return this.storage.entry(this.key(offset)) !== undefined;
  }

  /** Claim one value; dry-run only checks. */
  async allocate(offset: number | undefined, owner: AllocationOwner, dryRun: boolean): Promise<void> {
    if (offset === undefined || offset < 0 || offset >= this.size) throw new AllocationError('notInRange', this.messages.notInRange);
    if (this.has(offset)) throw new AllocationError('allocated', this.messages.allocated);
    if (dryRun) return;
    if (!(await this.claim(offset, owner))) throw new AllocationError('allocated', this.messages.allocated);
  }

  /** Claim a free value: a random start, then a linear scan (kube's random scan strategy). */
  async allocateNext(owner: AllocationOwner, dryRun: boolean): Promise<number> {
    const start = this.size > 0 ? randomInt(this.size) : 0;
    for (let i = 0; i < this.size; i++) {
      const offset = (start + i) % this.size;
      if (this.has(offset)) continue;
      if (dryRun || (await this.claim(offset, owner))) return offset;
    }
    throw new AllocationError('full', 'range is full');
  }

  /**
   * Give a value back if `ownerUid` (the Service's uid) holds it: the record is deleted at the
   * version read, so a record someone else claimed meanwhile is never removed. Idempotent.
   */
  async release(offset: number, ownerUid: string): Promise<void> {
    if (offset < 0 || offset >= this.size || !this.has(offset)) return;
    const bytes = await this.storage.get(this.key(offset));
    if (!bytes) return;
    const record = JSON.parse(bytes.toString('utf8')) as { metadata: { resourceVersion?: string }; owner: AllocationOwner | null };
    if (record.owner && record.owner.uid !== ownerUid) return;
    await deleteAllocationRecord(this.storage, this.resource, this.nameOf(offset), Number(record.metadata.resourceVersion));
  }

  private async claim(offset: number, owner: AllocationOwner): Promise<boolean> {
    const k = this.key(offset);
    const record = { apiVersion: `${ALLOCATION_GROUP}/v1`, kind: 'Allocation', metadata: { name: k.name }, owner };
    const verdict = await this.storage.writeSystem({ op: 'CREATE', key: k, object: record, verb: 'allocate' });
    return verdict.accepted;
  }
}

/** Service ClusterIPs from one `--service-cluster-ip-range` CIDR. */
export class IPAllocator {
  readonly family: IPFamily;
  readonly cidr: ParsedCIDR;
  /** First usable address (network address + 1). */
  private readonly first: bigint;
  private readonly range: RecordRange;

  constructor(storage: AllocationStorage, cidrText: string) {
    const cidr = parseCIDR(cidrText);
    if (!cidr) throw new Error(`--service-cluster-ip-range: "${cidrText}" is not a CIDR`);
    this.cidr = cidr;
    this.family = cidr.family;
    // The network address is never handed out, nor IPv4's broadcast address; IPv6 ranges are
    // capped at 65536 addresses as kube's bitmap is.
    let max = cidr.size;
    if (cidr.family === 'IPv6' && max > 65536n) max = 65536n;
    if (cidr.family === 'IPv4') max -= 1n;
    max -= 1n;
    if (max < 1n) throw new Error(`--service-cluster-ip-range: ${cidr.text} has no usable addresses`);
    this.first = cidr.base + 1n;
    const family = cidr.family;
    this.range = new RecordRange(storage, IP_RECORDS, Number(max), (o) => formatIP({ family, value: this.first + BigInt(o) }), {
      allocated: 'provided IP is already allocated',
      notInRange: '',
    });
  }

  /** The n-th usable address (0 → the range's ".1"), e.g. the `kubernetes` Service's IP. */
  nth(n: number): string {
    return formatIP({ family: this.family, value: this.first + BigInt(n) });
  }

  private offsetOf(ip: string): number | undefined {
    const p = parseIP(ip);
    if (!p || p.family !== this.family) return undefined;
    const o = p.value - this.first;
    return o >= 0n && o < BigInt(this.range.size) ? Number(o) : undefined;
  }

  /** Claim `ip`; AllocationError 'notInRange' / 'allocated' with kube's messages. */
  async allocate(ip: string, owner: AllocationOwner, dryRun: boolean): Promise<void> {
    const offset = this.offsetOf(ip);
    if (offset === undefined) {
      const shown = parseIP(ip);
      throw new AllocationError('notInRange', `the provided IP (${shown ? formatIP(shown) : ip}) is not in the valid range. The range of valid IPs is ${this.cidr.text}`);
    }
    // kube's dry-run does not check whether the IP is free (it would be racy anyway).
    if (dryRun) return;
    await this.range.allocate(offset, owner, false);
  }

  async allocateNext(owner: AllocationOwner, dryRun: boolean): Promise<string> {
    return formatIP({ family: this.family, value: this.first + BigInt(await this.range.allocateNext(owner, dryRun)) });
  }

  /** Release `ip` if the Service with uid `ownerUid` holds it. */
  async release(ip: string, ownerUid: string): Promise<void> {
    const offset = this.offsetOf(ip);
    if (offset !== undefined) await this.range.release(offset, ownerUid);
  }
}

/** Service NodePorts from `--service-node-port-range` ("30000-32767", or "30000+2768"). */
export class PortAllocator {
  readonly base: number;
  readonly size: number;
  /** kube's PortRange.String(): "30000-32767". */
  readonly text: string;
  private readonly range: RecordRange;

  constructor(storage: AllocationStorage, rangeText: string) {
    const m = /^\s*(\d+)\s*(?:([-+])\s*(\d+))?\s*$/.exec(rangeText);
    if (!m) throw new Error(`--service-node-port-range: "${rangeText}" is not a port range (want e.g. 30000-32767)`);
    const base = Number(m[1]);
    const size = m[2] === '+' ? Number(m[3]) : m[2] === '-' ? Number(m[3]) - base + 1 : 1;
    if (!(base >= 1 && size >= 1 && base + size - 1 <= 65535)) throw new Error(`--service-node-port-range: "${rangeText}" is not a valid range within 1-65535`);
    this.base = base;
    this.size = size;
    this.text = `${base}-${base + size - 1}`;
    this.range = new RecordRange(storage, PORT_RECORDS, size, (o) => String(base + o), {
      allocated: 'provided port is already allocated',
      notInRange: `provided port is not in the valid range. The range of valid ports is ${this.text}`,
    });
  }

  async allocate(port: number, owner: AllocationOwner, dryRun: boolean): Promise<void> {
    await this.range.allocate(Number.isInteger(port) ? port - this.base : undefined, owner, dryRun);
  }

  async allocateNext(owner: AllocationOwner, dryRun: boolean): Promise<number> {
    return this.base + (await this.range.allocateNext(owner, dryRun));
  }

  /** Release `port` if the Service with uid `ownerUid` holds it. */
  async release(port: number, ownerUid: string): Promise<void> {
    if (Number.isInteger(port)) await this.range.release(port - this.base, ownerUid);
  }
}
