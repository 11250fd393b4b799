/**
 * Resume storm after a restart (issue 24, the soak's restart cost): --watchers watches resume at
 * once, from resourceVersions spread over --writes ConfigMap creates, on a server just restarted
 * (so every start is older than its in-memory ring and is served from the log).
 *
 *   node --import tsx bench/resume-storm.ts [--writes 2000] [--watchers 600] [--namespaces 20]
 *
 * The server runs in this process (test/harness.ts) and the watches share HTTP/2 sessions (200
 * streams each); a third of them watch every namespace, the rest one namespace. Printed every
 * second until every all-namespaces watcher has all its events: the events received and the
 * process's RSS (server and clients together); at the end, the latency of another client's GETs
 * (a list page of 50 every 100 ms) meanwhile. A measurement tool, not a check: it prints no goals.
 */
import http2 from 'node:http2';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestServer, tempDir } from '../test/harness.ts';

const { values: args } = parseArgs({
  options: {
    writes: { type: 'string', default: '2000' },
    watchers: { type: 'string', default: '600' },
    namespaces: { type: 'string', default: '20' },
  },
});
const N = Number(args.writes);
const W = Number(args.watchers);
const NS = Number(args.namespaces);

const dataDir = tempDir('resume-storm-');
let s = await startTestServer({ dataDir, logLevel: 'error' });
for (let i = 0; i < NS; i++) await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: `storm-${i}` } } });
const rvs: number[] = [];
let inflight: Promise<void>[] = [];
for (let i = 0; i < N; i++) {
  const path = `/api/v1/namespaces/storm-${i % NS}/configmaps`;
  inflight.push(s.client.request('POST', path, { body: { metadata: { name: `c${i}` }, data: { x: 'y'.repeat(500) } } }).then((r) => void rvs.push(Number((r.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion))));
  if (inflight.length >= 32) {
    await Promise.all(inflight);
    inflight = [];
  }
}
await Promise.all(inflight);
rvs.sort((a, b) => a - b);
await s.close();
s = await startTestServer({ dataDir, logLevel: 'error' });
const pki = join(dataDir, 'pki');
const tls = { ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) };
const sessions = Array.from({ length: Math.ceil(W / 200) }, () => http2.connect(s.url, tls));
const t0 = performance.now();
const got = new Array<number>(W).fill(0);
const want = new Array<number>(W).fill(0);
let complete = 0;
for (let w = 0; w < W; w++) {
  const from = rvs[(w * 7919) % rvs.length];
  const all = w % 3 === 0;
  want[w] = all ? rvs.filter((rv) => rv > from).length : 0;
  const path = all ? `/api/v1/configmaps?watch=true&resourceVersion=${from}` : `/api/v1/namespaces/storm-${w % NS}/configmaps?watch=true&resourceVersion=${from}`;
  const st = sessions[w % sessions.length].request({ ':path': path, accept: 'application/json' });
  let buf = '';
  st.on('data', (c: Buffer) => {
    buf += c.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      buf = buf.slice(i + 1);
      got[w]++;
    }
    if (want[w] > 0 && got[w] >= want[w]) {
      complete++;
      want[w] = 0;
    }
  });
  st.on('error', () => undefined);
}
// Another client's GETs meanwhile: a list page of 50, one at a time, every 100 ms.
const gets: number[] = [];
let probing = true;
const probe = (async () => {
  while (probing) {
    const t = performance.now();
    const r = await s.client.request('GET', '/api/v1/namespaces/storm-0/configmaps?limit=50');
    if (r.status === 200) gets.push(performance.now() - t);
    await new Promise((res) => setTimeout(res, 100));
  }
})();
const allNs = Math.ceil(W / 3);
let peak = 0;
for (let k = 0; k < 300 && complete < allNs; k++) {
  await new Promise((r) => setTimeout(r, 1000));
  const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
  peak = Math.max(peak, rss);
  console.log(`t=${Math.round((performance.now() - t0) / 1000)}s all-namespaces watchers complete ${complete}/${allNs}, events ${got.reduce((a, b) => a + b, 0)}, RSS ${rss} MiB`);
}
probing = false;
await probe;
gets.sort((a, b) => a - b);
const q = (p: number): number => Math.round(gets[Math.min(gets.length - 1, Math.floor(p * gets.length))]);
console.log(`resume storm: ${W} watchers over ${N} writes: ${complete === allNs ? `all complete after ${Math.round(performance.now() - t0)} ms` : 'NOT complete'}, peak RSS ${peak} MiB; another client's GETs meanwhile: ${gets.length}, p50 ${q(0.5)} p99 ${q(0.99)} max ${q(1)} ms`);
sessions.forEach((x) => x.close());
await s.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
