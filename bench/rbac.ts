/**
 * Authorization cost benchmark (`npm run bench:rbac`, issue 13): requests/s of a GET of one
 * ConfigMap under RBAC with 1,000 roles and 1,000 bindings stored, by three callers:
 *
 *   admin-cert     the admin client certificate (system:masters: the privileged-group authorizer
 *                  allows it before RBAC is asked) — the baseline the issue names
 *   token-masters  a bearer token (--token-auth-file) of a user in system:masters: token
 *                  authentication, no RBAC evaluation — separates authentication from authorization
 *   token-rbac     a bearer token of a user that only RBAC allows, through a RoleBinding stored among
 *                  the 1,000 others (500 ClusterRoles + ClusterRoleBindings for other subjects, 500
 *                  Roles + RoleBindings in the same namespace for other subjects)
 *
 *   node --import tsx bench/rbac.ts [--roles 1000] [--connections 16] [--seconds 5] [--rounds 3] [--keep]
 *
 * The server runs as a child process over TLS. The scenarios alternate, --rounds times (the
 * machine is shared: interleaving spreads the noise). Reported per scenario: the median requests/s
 * over the rounds, server CPU per request (robust to other load) and latency; and the token-rbac /
 * admin-cert ratio (goal: authorization costs at most 10%, i.e. ratio ≥ 0.9 of the requests/s and
 * ≤ 1.1× the CPU per request). JSON: bench/results/rbac-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { adminTls, benchSession, endBench, fmt, median, procCpuMs, round, spawnServerWithFlags, summarize, writeResult, type LatencySummary } from './util.ts';

const { values: args } = parseArgs({
  options: {
    roles: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const cfg = { roles: Number(args.roles), connections: Number(args.connections), seconds: Number(args.seconds), rounds: Number(args.rounds) };
const { log, tmpRoot, machine } = benchSession('rbac', args.keep!, cfg);

const NS = 'bench-rbac';
const MASTERS_TOKEN = 'bench-masters-token-0123456789abcdef';
const RBAC_TOKEN = 'bench-rbac-token-0123456789abcdef';

interface Scenario {
  name: string;
  /** Extra request headers (the bearer token), none for the client certificate. */
  headers: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  { name: 'admin-cert', headers: {} },
  { name: 'token-masters', headers: { authorization: `Bearer ${MASTERS_TOKEN}` } },
  { name: 'token-rbac', headers: { authorization: `Bearer ${RBAC_TOKEN}` } },
];

interface Result {
  scenario: string;
  requests: number;
  perSecond: number;
  rounds: number[];
  serverCpuUsPerRequest: number;
  errors: number;
  latencyMs: LatencySummary;
}

const rule = (i: number) => ({ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: [`other-${i}`] });

async function main(): Promise<void> {
  const dataDir = join(tmpRoot, 'data');
  mkdirSync(dataDir, { recursive: true });
  const tokenFile = join(tmpRoot, 'tokens.csv');
  writeFileSync(tokenFile, `${MASTERS_TOKEN},bench-master,uid-m,"system:masters"\n${RBAC_TOKEN},bench-reader,uid-r,"bench-readers"\n`);
  const server = await spawnServerWithFlags({ dataDir, flags: ['--token-auth-file', tokenFile] });
  await server.ready;
  const tls = adminTls(join(dataDir, 'pki'));
  // Token callers present no certificate: a separate agent without the admin key pair.
  const certAgent = new Agent({ connect: { ...tls, rejectUnauthorized: true }, connections: cfg.connections, pipelining: 1 });
  const tokenAgent = new Agent({ connect: { ca: tls.ca, rejectUnauthorized: true }, connections: cfg.connections, pipelining: 1 });
  const call = async (agent: Agent, method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: unknown): Promise<number> => {
    const r = await request(`${server.origin}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined, dispatcher: agent });
    await r.body.text();
    return r.statusCode;
  };
  const create = async (path: string, body: unknown): Promise<void> => {
    const code = await call(certAgent, 'POST', path, {}, body);
    if (code !== 201) throw new Error(`POST ${path}: HTTP ${code}`);
  };
  const results: Result[] = [];
  try {
    await create('/api/v1/namespaces', { metadata: { name: NS } });
    await create(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'target' }, data: { k: 'v'.repeat(1024) } });
    const half = Math.floor(cfg.roles / 2);
    const t0 = performance.now();
    const rb = '/apis/rbac.authorization.k8s.io/v1';
    const work: (() => Promise<void>)[] = [];
    for (let i = 0; i < half; i++) {
      work.push(async () => {
        await create(`${rb}/clusterroles`, { metadata: { name: `bench-cr-${i}` }, rules: [rule(i)] });
        await create(`${rb}/clusterrolebindings`, { metadata: { name: `bench-crb-${i}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `bench-cr-${i}` }, subjects: [{ kind: 'User', name: `someone-${i}` }, { kind: 'Group', name: `group-${i}` }] });
      });
      work.push(async () => {
        await create(`${rb}/namespaces/${NS}/roles`, { metadata: { name: `bench-r-${i}` }, rules: [rule(i)] });
        await create(`${rb}/namespaces/${NS}/rolebindings`, { metadata: { name: `bench-rb-${i}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `bench-r-${i}` }, subjects: [{ kind: 'User', name: `someone-else-${i}` }] });
      });
    }
    for (let i = 0; i < work.length; i += 32) await Promise.all(work.slice(i, i + 32).map((w) => w()));
    // The one binding that lets bench-reader (through its group) read the target, created last.
    await create(`${rb}/namespaces/${NS}/roles`, { metadata: { name: 'bench-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    await create(`${rb}/namespaces/${NS}/rolebindings`, { metadata: { name: 'bench-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'bench-reader' }, subjects: [{ kind: 'Group', name: 'bench-readers' }] });
    log(`stored ${2 * half} roles and ${2 * half} bindings (+1 each for the reader) in ${fmt((performance.now() - t0) / 1000)} s`);

    const path = `/api/v1/namespaces/${NS}/configmaps/target`;
    for (const s of SCENARIOS) {
      // The reader's binding may need a moment to reach the RBAC cache: wait until it is allowed.
      for (let tries = 0; ; tries++) {
        const code = await call(s.name === 'admin-cert' ? certAgent : tokenAgent, 'GET', path, s.headers);
        if (code === 200) break;
        if (tries > 100) throw new Error(`${s.name}: GET answers HTTP ${code}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    // Warm-up.
    for (const s of SCENARIOS) for (let i = 0; i < 200; i++) await call(s.name === 'admin-cert' ? certAgent : tokenAgent, 'GET', path, s.headers);

    const acc = new Map(SCENARIOS.map((s) => [s.name, { lat: [] as number[], rates: [] as number[], errors: 0, cpuMs: 0 }]));
    for (let r = 0; r < cfg.rounds; r++) {
      for (const s of SCENARIOS) {
        const a = acc.get(s.name)!;
        const agent = s.name === 'admin-cert' ? certAgent : tokenAgent;
        let count = 0;
        const start = performance.now();
        const end = start + cfg.seconds * 1000;
        const cpu0 = procCpuMs(server.pid);
        await Promise.all(
          Array.from({ length: cfg.connections }, async () => {
            while (performance.now() < end) {
              const t = performance.now();
              const code = await call(agent, 'GET', path, s.headers);
              a.lat.push(performance.now() - t);
              count++;
              if (code !== 200) a.errors++;
            }
          }),
        );
        a.cpuMs += procCpuMs(server.pid) - cpu0;
        const rate = round(count / ((performance.now() - start) / 1000), 1);
        a.rates.push(rate);
        log(`round ${r + 1}/${cfg.rounds} ${s.name.padEnd(13)} ${fmt(rate)} GET/s`);
      }
    }
    for (const s of SCENARIOS) {
      const a = acc.get(s.name)!;
      const res: Result = { scenario: s.name, requests: a.lat.length, perSecond: median(a.rates), rounds: a.rates, serverCpuUsPerRequest: round((a.cpuMs * 1000) / a.lat.length, 0), errors: a.errors, latencyMs: summarize(a.lat) };
      results.push(res);
      log(`${s.name.padEnd(13)} median ${fmt(res.perSecond)} GET/s  server CPU ${fmt(res.serverCpuUsPerRequest, 0)} µs/GET  p50 ${fmt(res.latencyMs.p50)} ms  p99 ${fmt(res.latencyMs.p99)} ms  errors ${a.errors}`);
    }
  } finally {
    await certAgent.close();
    await tokenAgent.close();
    await server.stop();
  }
  const by = (n: string) => results.find((r) => r.scenario === n)!;
  const ratio = round(by('token-rbac').perSecond / by('admin-cert').perSecond, 3);
  const cpuRatio = round(by('token-rbac').serverCpuUsPerRequest / by('admin-cert').serverCpuUsPerRequest, 3);
  const authzCpuRatio = round(by('token-rbac').serverCpuUsPerRequest / by('token-masters').serverCpuUsPerRequest, 3);
  log(`token-rbac / admin-cert: ${ratio} of the GET/s, ${cpuRatio}× the server CPU per GET (goal: authorization costs ≤ 10%) ${ratio >= 0.9 && cpuRatio <= 1.1 ? 'OK' : 'MISSED'}`);
  log(`token-rbac / token-masters (RBAC evaluation alone): ${authzCpuRatio}× the server CPU per GET`);
  const file = writeResult('rbac', { timestamp: new Date().toISOString(), machine, config: cfg, results, ratio, cpuRatio, authzCpuRatio } as { timestamp: string });
  log(`results: ${file}`);
}

main()
  .catch((e) => {
    process.exitCode = 1;
    log(`failed: ${(e as Error).stack ?? e}`);
  })
  .finally(() => endBench(tmpRoot, args.keep!));
