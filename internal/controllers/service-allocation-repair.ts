/**
 * Releases ClusterIP and NodePort allocation records that no Service holds, as kube-apiserver's
 * repair controllers do (pkg/registry/core/service/ipallocator/controller/repair.go and
 * portallocator/controller/repair.go). A record leaks when a process dies between claiming a
 * value and writing its Service.
 *
 * Each pass reads the records and every Service from one snapshot. A record that no Service holds
 * is a suspect; a suspect still unheld, at the same version, after LEAK_PASSES passes is deleted
 * with that version as precondition (a re-claim in between makes the fold refuse the delete). A
 * claim that is only in flight (its Service write still coming) lasts far less than the passes
 * span, so it is never taken for a leak — kube waits the same way (numRepairsBeforeLeakCleanup).
 *
 *   pass 1: 10.0.0.7 unheld → suspect (seen 1)
 *   pass 2: 10.0.0.7 unheld, same version → seen 2
 *   pass 3: 10.0.0.7 unheld, same version → DELETE expecting that version → free again
 */
import type { Logger } from 'pino';
import type { Storage } from '../storage/storage.ts';
import { currentPrefix } from '../storage/keys.ts';
import { ALLOCATION_GROUP, IP_RECORDS, PORT_RECORDS, deleteAllocationRecord } from '../registry/core/service-alloc.ts';
import { formatIP, parseIP } from '../validation/network.ts';

/** kube's repair interval for service IPs and node ports (3 minutes). */
export const REPAIR_INTERVAL_MS = 3 * 60_000;
/** Passes a record must stay unheld before it is released (kube: numRepairsBeforeLeakCleanup). */
export const LEAK_PASSES = 3;

interface Suspect {
  rv: number;
  seen: number;
}

/** The values Services hold: canonical addresses, and node ports (incl. health check ports). */
interface Held {
  ips: Set<string>;
  ports: Set<string>;
}

export class ServiceAllocationRepair {
  private readonly suspects = new Map<string, Suspect>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly storage: Storage, private readonly log: Logger, private readonly intervalMs = REPAIR_INTERVAL_MS) {}

  /** A first pass now (it only records suspects), then one every interval. */
  start(): void {
    const tick = (): void => {
      this.running = this.running.then(() => this.pass()).catch((err) => this.log.warn({ err }, 'service allocation repair pass failed; will retry'));
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  /** Stop; resolves once a running pass has finished. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass; returns the `<resource>/<name>` records it released. */
  async pass(): Promise<string[]> {
    const view = await this.storage.view();
    const records: { resource: string; name: string; rv: number }[] = [];
    let held: Held;
    try {
      held = await heldValues(view.scan(currentPrefix('', 'services'), prefixEnd(currentPrefix('', 'services'))));
      for (const resource of [IP_RECORDS, PORT_RECORDS]) {
        const prefix = currentPrefix(ALLOCATION_GROUP, resource);
        for await (const [, value] of view.scan(prefix, prefixEnd(prefix))) {
          const r = JSON.parse(value.toString('utf8')) as { metadata: { name: string; resourceVersion: string } };
          records.push({ resource, name: r.metadata.name, rv: Number(r.metadata.resourceVersion) });
        }
      }
    } finally {
      await view.close();
    }
    const released: string[] = [];
    const seenNow = new Set<string>();
    for (const r of records) {
      const key = `${r.resource}/${r.name}`;
      if ((r.resource === IP_RECORDS ? held.ips : held.ports).has(r.name)) continue;
      seenNow.add(key);
      const prev = this.suspects.get(key);
      const seen = prev && prev.rv === r.rv ? prev.seen + 1 : 1;
      if (seen < LEAK_PASSES) {
        this.suspects.set(key, { rv: r.rv, seen });
        continue;
      }
      this.suspects.delete(key);
      if (await deleteAllocationRecord(this.storage, r.resource, r.name, r.rv)) {
        released.push(key);
        this.log.warn({ record: key }, 'released a leaked service allocation (no Service held it)');
      }
    }
    for (const key of this.suspects.keys()) if (!seenNow.has(key)) this.suspects.delete(key);
    return released;
  }
}

/** What the Services of one snapshot hold. */
async function heldValues(services: AsyncIterable<[string, Buffer]>): Promise<Held> {
  const held: Held = { ips: new Set(), ports: new Set() };
  for await (const [, value] of services) {
    const spec = (JSON.parse(value.toString('utf8')).spec ?? {}) as {
      type?: string;
      clusterIPs?: string[];
      ports?: { nodePort?: number }[];
      healthCheckNodePort?: number;
    };
    if (spec.type !== 'ExternalName') {
      for (const ip of spec.clusterIPs ?? []) {
        const p = parseIP(ip);
        if (p) held.ips.add(formatIP(p));
      }
    }
    for (const port of spec.ports ?? []) if (port?.nodePort) held.ports.add(String(port.nodePort));
    if (spec.healthCheckNodePort) held.ports.add(String(spec.healthCheckNodePort));
  }
  return held;
}

/** The first key after every key under `prefix` (its trailing '/' bumped to '0'). */
const prefixEnd = (prefix: string): string => prefix.slice(0, -1) + '0';
