/**
 * GET-latency probe, run as its own process so that the load generator's event loop does not add
 * to the figures: one keep-alive TLS connection, sequential GETs of existing objects.
 *
 *   node --import tsx bench/probe.ts <origin> <pkiDir> <pathPrefix> <count> <maxMs>
 *
 * IPC: sends {type:'ready'} after the first 200; on {type:'start'} it clears its samples; on
 * {type:'stop'} it sends {type:'result', ...} and exits. It exits by itself after maxMs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { summarize } from './util.ts';

const [origin, pkiDir, prefix, countArg, maxMsArg] = process.argv.slice(2);
if (!origin || !pkiDir || !prefix || !countArg || !maxMsArg || !process.send) {
  process.stderr.write('usage: probe.ts <origin> <pkiDir> <pathPrefix> <count> <maxMs> (with an IPC channel)\n');
  process.exit(2);
}
const count = Number(countArg);
const deadline = Date.now() + Number(maxMsArg);
setTimeout(() => process.exit(3), Number(maxMsArg)).unref();

const client = new Client(origin, {
  connect: {
    ca: readFileSync(join(pkiDir, 'ca.crt'), 'utf8'),
    cert: readFileSync(join(pkiDir, 'admin.crt'), 'utf8'),
    key: readFileSync(join(pkiDir, 'admin.key'), 'utf8'),
  },
  pipelining: 1,
  headersTimeout: 30_000,
  bodyTimeout: 30_000,
});

let samples: number[] = [];
let statuses: Record<string, number> = {};
let errors = 0;
const errorSamples: string[] = [];
let stopping = false;
let readySent = false;

process.on('message', (m: { type?: string }) => {
  if (m?.type === 'start') {
    samples = [];
    statuses = {};
    errors = 0;
  } else if (m?.type === 'stop') {
    stopping = true;
  }
});

let i = 0;
while (!stopping && Date.now() < deadline) {
  const path = `${prefix}${i++ % count}`;
  const t0 = performance.now();
  try {
    const r = await client.request({ path, method: 'GET', headers: { accept: 'application/json' } });
    await r.body.text();
    const ms = performance.now() - t0;
    statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
    if (r.statusCode === 200) {
      samples.push(ms);
      if (!readySent) {
        readySent = true;
        process.send!({ type: 'ready' });
      }
    }
  } catch (e) {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(String((e as Error)?.message ?? e));
    await new Promise((r) => setTimeout(r, 10));
  }
}

process.send!({ type: 'result', latencyMs: summarize(samples), statuses, errors, errorSamples }, () => {
  void client.close().finally(() => process.exit(0));
});
