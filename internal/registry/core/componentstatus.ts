/**
 * ComponentStatus (core/v1, cluster-scoped, deprecated since 1.19, short name cs), after
 * Kubernetes 1.24.17 pkg/registry/core/componentstatus: read-only (get, list), nothing stored;
 * every read probes the components again:
 * - `scheduler` and `controller-manager`: kube-apiserver's probes, HTTPS GET
 *   https://127.0.0.1:10259/healthz and :10257/healthz without verifying the certificate (a real
 *   kube-scheduler / kube-controller-manager on this host with their default secure ports answers
 *   them). Healthy True with the body for 2xx, Unknown for 3xx, False "HTTP probe failed with
 *   statuscode: N" for others, False with Go's error text when nothing answers (kube's http prober);
 * - `etcd-0`: this server's storage plays etcd's role, so it reports the store's health (the
 *   snapshot store and the log answer, no refused writes or damage: storage.probe and
 *   storage.health) in etcd's /health body: `{"health":"true","reason":""}`, or Healthy False with
 *   `{"health":"false","reason":"<why>"}`.
 * An unknown name is kube's 500 `Component not found: <name>`. printComponentStatus is its Table.
 */
import { request } from 'node:https';
import { unknownError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import type { Storage } from '../../storage/storage.ts';
import type { ComputedKind, KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { NAME_COLUMN } from '../rest/table-columns.ts';

/** kube's probeTimeOut. */
const PROBE_TIMEOUT_MS = 20_000;
/** The http prober reads at most this much of a body. */
const MAX_BODY = 10 * 1024;

interface Condition {
  status: 'True' | 'False' | 'Unknown';
  message: string;
  error?: string;
}

/** Go's net/http error text of a failed GET (`Get "<url>": …`). */
function goError(url: string, e: NodeJS.ErrnoException, host: string, port: number): string {
  if (e.code === 'ECONNREFUSED') return `Get "${url}": dial tcp ${host}:${port}: connect: connection refused`;
  if (e.code === 'ETIMEDOUT') return `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  return `Get "${url}": ${e.message}`;
}

/** httpprober.Probe of https://host:port/path (InsecureSkipVerify, 20 s). */
function probeHttps(host: string, port: number, path: string): Promise<Condition> {
  const url = `https://${host}:${port}${path}`;
  return new Promise((resolve) => {
    const req = request({ host, port, path, method: 'GET', rejectUnauthorized: false, timeout: PROBE_TIMEOUT_MS, headers: { 'user-agent': 'kube-probe/1.24', accept: '*/*' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < MAX_BODY) chunks.push(c.subarray(0, MAX_BODY - size));
        size += c.length;
      });
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        const body = Buffer.concat(chunks).toString('utf8');
        if (code >= 200 && code < 300) resolve({ status: 'True', message: body });
        else if (code >= 300 && code < 400) resolve({ status: 'Unknown', message: body });
        else resolve({ status: 'False', message: `HTTP probe failed with statuscode: ${code}` });
      });
      res.on('error', (e) => resolve({ status: 'False', message: goError(url, e, host, port) }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 'False', message: goError(url, e, host, port) }));
    req.end();
  });
}

/** etcd-0: the store's health in etcd's /health body. */
async function storeHealth(storage: Storage): Promise<Condition> {
  const body = (health: boolean, reason: string) => JSON.stringify({ health: String(health), reason });
  const problem = storage.health.problem;
  if (problem) return { status: 'False', message: body(false, problem.reason) };
  try {
    await storage.probe();
    return { status: 'True', message: body(true, '') };
  } catch (e) {
    return { status: 'False', message: body(false, (e as Error).message) };
  }
}

/** The components kube-apiserver validates, in the order lists show them. */
function components(storage: Storage): Record<string, () => Promise<Condition>> {
  return {
    scheduler: () => probeHttps('127.0.0.1', 10259, '/healthz'),
    'controller-manager': () => probeHttps('127.0.0.1', 10257, '/healthz'),
    'etcd-0': () => storeHealth(storage),
  };
}

const componentStatus = (name: string, c: Condition): KubeObject => ({
  kind: 'ComponentStatus',
  apiVersion: 'v1',
  // kube's object has a zero creationTimestamp, written as null.
  metadata: { name, creationTimestamp: null as unknown as string },
  conditions: [{ type: 'Healthy', status: c.status, message: c.message, ...(c.error ? { error: c.error } : {}) }],
});

/** The REST: each read probes again (all components at once for a list). */
export function componentStatusREST(storage: Storage): ComputedKind {
  const all = components(storage);
  return {
    list: async () => Promise.all(Object.entries(all).map(async ([name, probe]) => componentStatus(name, await probe()))),
    get: async (name) => {
      const probe = Object.hasOwn(all, name) ? all[name] : undefined;
      if (!probe) throw unknownError(`Component not found: ${name}`);
      return componentStatus(name, await probe());
    },
  };
}

/** printComponentStatus: the Healthy condition's status, message and error (no Age column). */
export const componentStatusTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'Status of the component conditions', priority: 0 },
    { name: 'Message', type: 'string', description: 'Message of the component conditions', priority: 0 },
    { name: 'Error', type: 'string', description: 'Error of the component conditions', priority: 0 },
  ],
  cells: (o) => {
    const conditions = Array.isArray(o.conditions) ? (o.conditions as Record<string, unknown>[]) : [];
    const healthy = conditions.find((c) => c.type === 'Healthy');
    const status = !healthy ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
    return [o.metadata.name ?? '', status, String(healthy?.message ?? ''), String(healthy?.error ?? '')];
  },
};

/** Never used: nothing is written (verbs get and list). */
const readOnly: Strategy = { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] };

/** core/v1 componentstatuses. */
export const componentStatusKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'componentstatuses',
  singular: 'componentstatus',
  kind: 'ComponentStatus',
  listKind: 'ComponentStatusList',
  namespaced: false,
  shortNames: ['cs'],
  verbs: ['get', 'list'],
  strategy: readOnly,
  table: componentStatusTable,
  deleteReturns: 'Status',
  deprecationWarning: 'v1 ComponentStatus is deprecated in v1.19+',
  computed: ({ storage }) => componentStatusREST(storage),
};
