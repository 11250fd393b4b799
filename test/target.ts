/**
 * The "target" of a fidelity suite: either this server (started in-process on a free port, as
 * startTestServer does) or, when `TEST_KUBECONFIG` names a kubeconfig, any running cluster — in
 * practice the reference kube-apiserver 1.24 of ../shared/reference/. A suite written against a
 * Target runs unchanged on both, so an assertion about "how Kubernetes answers" is checked against
 * Kubernetes itself once (a test that fails there asserts the wrong thing):
 *
 *   ../shared/reference/start.sh /tmp/ref 16443
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity
 *
 * Suites must create their own uniquely named namespaces (`target.ns('x')`) so they can run against
 * a long-lived cluster; the reference has no controller-manager, so deleted namespaces stay
 * Terminating there and are simply left behind.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { Agent } from 'undici';
import { startTestServer, agentClient, type Client, type TestServer } from './harness.ts';
import type { ServerOptions } from '../internal/app/app.ts';

export interface Target {
  /** Base URL (https://host:port). */
  url: string;
  /** Admin client (system:masters). */
  client: Client;
  /** A kubeconfig kubectl/client-go/Python can use as is. */
  kubeconfig: string;
  /** True when the suite runs against an external cluster (TEST_KUBECONFIG). */
  reference: boolean;
  /** This server, when the target is ours (undefined against the reference). */
  local?: TestServer;
  /** A fresh namespace name with this prefix, unique per run (created by `createNamespace`). */
  ns(prefix: string): string;
  /** Create a namespace and return its name. */
  createNamespace(prefix: string): Promise<string>;
  close(): Promise<void>;
}

interface KubeconfigCreds {
  server: string;
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
}

/** Reads the current context's server and credentials (inline data or file paths). */
export function readKubeconfig(path: string): KubeconfigCreds {
  const kc = parseYaml(readFileSync(path, 'utf8')) as any;
  const ctxName = kc['current-context'];
  const ctx = (kc.contexts ?? []).find((c: any) => c.name === ctxName)?.context ?? kc.contexts?.[0]?.context;
  const cluster = (kc.clusters ?? []).find((c: any) => c.name === ctx?.cluster)?.cluster;
  const user = (kc.users ?? []).find((u: any) => u.name === ctx?.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`${path}: no server in the current context`);
  const pick = (data: string | undefined, file: string | undefined): string | undefined =>
    data ? Buffer.from(data, 'base64').toString('utf8') : file ? readFileSync(file, 'utf8') : undefined;
  return {
    server: String(cluster.server).replace(/\/$/, ''),
    ca: pick(cluster['certificate-authority-data'], cluster['certificate-authority']) ?? '',
    cert: pick(user['client-certificate-data'], user['client-certificate']),
    key: pick(user['client-key-data'], user['client-key']),
    token: user.token,
  };
}

/** An HTTPS client for a kubeconfig's current context (same shape as harness.clientFor). */
export function clientForKubeconfig(path: string): { url: string; client: Client } {
  const k = readKubeconfig(path);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key }, connections: 64, pipelining: 1 });
  const client = agentClient(k.server, agent, k.token ? { authorization: `Bearer ${k.token}` } : {});
  return { url: k.server, client };
}

/** Start the target: this server, or the cluster of TEST_KUBECONFIG. */
export async function startTarget(opts: Partial<ServerOptions> = {}): Promise<Target> {
  const run = randomBytes(3).toString('hex');
  const ns = (prefix: string): string => `${prefix}-${run}`;
  const external = process.env.TEST_KUBECONFIG;
  let base: Omit<Target, 'ns' | 'createNamespace'>;
  if (external) {
    const { url, client } = clientForKubeconfig(external);
    base = { url, client, kubeconfig: external, reference: true, close: () => client.close() };
  } else {
    const local = await startTestServer(opts);
    base = { url: local.url, client: local.client, kubeconfig: join(local.dataDir, 'kubeconfig'), reference: false, local, close: () => local.close() };
  }
  return {
    ...base,
    ns,
    async createNamespace(prefix: string): Promise<string> {
      const name = ns(prefix);
      const r = await base.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
      if (r.status !== 201) throw new Error(`create namespace ${name}: HTTP ${r.status} ${r.text}`);
      return name;
    },
  };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Replace what must differ between two servers (uids, timestamps, resourceVersions, the run's
 * namespace suffix, continue tokens) by placeholders, so answers compare byte for byte.
 */
export function normalize(value: unknown, names: Record<string, string> = {}): unknown {
  const rename = (s: string): string => {
    for (const [from, to] of Object.entries(names)) s = s.split(from).join(to);
    return s;
  };
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') {
      if (key === 'resourceVersion') return v === '' ? '' : '<rv>';
      if (key === 'continue') return v === '' ? '' : '<continue>';
      if (UUID.test(v)) return '<uid>';
      if (RFC3339.test(v)) return '<time>';
      return rename(v);
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[rename(k)] = walk(x, k);
      return out;
    }
    return v;
  };
  return walk(value, '');
}
