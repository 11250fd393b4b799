/**
 * CPU per paged LIST page, JSON against Protobuf (issue 28's Protobuf figure): one API server
 * (cmd/apiserver.ts, fsync on) filled with --count 1 KiB ConfigMaps in one namespace, then paged
 * through with limit=--limit following metadata.continue, one page at a time, --pages pages per
 * round, JSON and Protobuf rounds alternating. Reported per round: pages/s and the server's process
 * CPU per page (the figure to trust on a shared machine). `--roots a,b`: the same data dir served by
 * each checkout in turn (before/after a change), every root --rounds times.
 *
 *   node --import tsx bench/protobuf-pages.ts [--count 10000] [--limit 500] [--pages 100] [--rounds 2] [--roots <dir>,<dir>]
 *        [--accepts json,protobuf]   (APISERVER_CPU_PROF=<dir>: the server's CPU profile, see bench/server.ts)
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { spawnApiServer } from './server.ts';
import { adminTls, apiJson, configMapBody, createNamespaces, procCpuMs, round } from './util.ts';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    limit: { type: 'string', default: '500' },
    pages: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '2' },
    roots: { type: 'string', default: '' },
    accepts: { type: 'string', default: 'json,protobuf' },
  },
});
const count = Number(args.count);
const limit = Number(args.limit);
const pages = Number(args.pages);
const roots = args.roots ? args.roots.split(',') : [undefined];
const PB = 'application/vnd.kubernetes.protobuf';
const accepts = args.accepts.split(',').map((a) => (a === 'protobuf' ? PB : 'application/json'));

/** Page through /api/v1/namespaces/bench/configmaps until `n` pages were read (starting over at the end). */
async function pageThrough(d: Dispatcher, origin: string, accept: string, n: number): Promise<number> {
  let bytes = 0;
  let cont = '';
  for (let i = 0; i < n; i++) {
    const r = await d.request({ origin, method: 'GET', path: `/api/v1/namespaces/bench/configmaps?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, headers: { accept } });
    const body = Buffer.from(await r.body.arrayBuffer());
    if (r.statusCode !== 200) throw new Error(`page ${i}: ${r.statusCode} ${body.toString().slice(0, 300)}`);
    bytes += body.length;
    // The continue token (base64 of a JSON object, so `eyJ…`), in the JSON or the Protobuf ListMeta alike.
    cont = /eyJ[A-Za-z0-9=_-]+/.exec(body.subarray(0, 600).toString('latin1'))?.[0] ?? '';
  }
  return bytes;
}

const dataDir = mkdtempSync(join(tmpdir(), 'pb-pages-'));
try {
  let filled = false;
  for (let round_ = 0; round_ < Number(args.rounds); round_++) {
    for (const root of roots) {
      const server = await spawnApiServer(dataDir, undefined, [], { root });
      await server.readyLog;
      const tls = adminTls(server.pkiDir);
      const d = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key }, connections: 32 });
      const api = { request: (o: Dispatcher.RequestOptions) => d.request({ ...o, origin: server.origin }) } as unknown as Dispatcher;
      if (!filled) {
        await createNamespaces(api, ['bench']);
        let next = 0;
        await Promise.all(Array.from({ length: 32 }, async () => {
          while (next < count) {
            const i = next++;
            const r = await apiJson(api, 'POST', '/api/v1/namespaces/bench/configmaps', configMapBody(`cm-${i}`, 'bench'));
            if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 200)}`);
          }
        }));
        filled = true;
      }
      for (const accept of [...accepts, ...accepts]) {
        await pageThrough(d, server.origin, accept, 5); // warm-up
        const cpu0 = procCpuMs(server.pid);
        const t0 = performance.now();
        const bytes = await pageThrough(d, server.origin, accept, pages);
        const ms = performance.now() - t0;
        const cpu = procCpuMs(server.pid) - cpu0;
        console.log(JSON.stringify({ root: root ?? '.', accept, pages, pagesPerS: round((pages * 1000) / ms, 1), cpuMsPerPage: round(cpu / pages, 2), kiBPerPage: round(bytes / pages / 1024, 1) }));
      }
      await d.close();
      await server.stop();
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
