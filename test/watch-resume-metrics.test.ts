/**
 * The watch hub's resume reads on /metrics (watch_resume_reads_total, watch_resume_read_events_total):
 * watches resumed after a restart, from a version older than the new process's ring, are served
 * by ONE read of the log shared by all of them (internal/watch/hub.ts). This server's internals
 * (a restart, its own metric names): here only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startTestServer, tempDir, type TestServer } from './harness.ts';
import { adminAgentFor, openWatchStream } from './watch-stream.ts';

const WATCHES = 5;
const WRITES = 20;
const dataDir = tempDir('watch-resume-metrics-');
let server: TestServer | undefined;

test.after(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('watches resumed below the ring after a restart share one log read, counted on /metrics', async () => {
  server = await startTestServer({ dataDir });
  let from = '';
  for (let i = 0; i < WRITES; i++) {
    const r = await server.client.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `resume-${i}` } } });
    assert.is(r.status, 201, r.text);
    from ||= r.json.metadata.resourceVersion;
  }
  await server.close();
  server = await startTestServer({ dataDir });
  const agent = adminAgentFor(join(dataDir, 'pki'));
  try {
    const watches = await Promise.all(Array.from({ length: WATCHES }, () => openWatchStream(server!.url, agent, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}&timeoutSeconds=10`)));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && watches.some((w) => w.events.length < WRITES - 1)) await new Promise((r) => setTimeout(r, 50));
    for (const w of watches) {
      assert.is(w.events.length, WRITES - 1, 'every write after the start version');
      w.close();
    }
    const metrics = (await server.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } })).text;
    const value = (re: RegExp): number => Number(metrics.match(re)?.[1] ?? NaN);
    const shared = value(/^watch_resume_reads_total\{kind="shared"\} (\d+)$/m);
    // Measured: 1 (the watches arrive while the first read runs); fewer reads than watches is the sharing.
    assert.ok(shared >= 1 && shared < WATCHES, `shared reads: ${shared}`);
    assert.is(value(/^watch_resume_reads_total\{kind="own"\} (\d+)$/m), 0, 'none for one watch alone');
    assert.ok(value(/^watch_resume_read_events_total (\d+)$/m) >= WRITES - 1, 'the reads went through the events after the start version');
  } finally {
    await agent.close();
  }
});

test.run();
