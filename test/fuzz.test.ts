/**
 * The property-based fuzzer (test/fuzz/) on CI's fixed budget: a fresh server (a child process, so
 * a crash is a finding), every resource, subresource and verb discovery lists, bodies in JSON, YAML,
 * Protobuf and each patch type, mutated and random, odd query parameters, headers and paths; after
 * each answer: no 5xx beyond those kube-apiserver 1.24.17 gives for the same input, a Status for
 * every 4xx, the server alive; every 200 requests and at the end `/readyz` 200 and each stored
 * object reads back and takes a no-op PUT. Budget: 55 s of requests or 4000 requests, whichever
 * comes first. A new seed each run (printed; FUZZ_SEED=<n> replays one; .ci/run fixes one); `npm run fuzz` runs longer.
 * Only this server: the fuzzer writes freely and its invariants were checked against the reference
 * input by input (see ALLOWED_5XX / NON_STATUS_4XX in test/fuzz/fuzz.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runFuzz } from './fuzz/fuzz.ts';

test('fuzz every route × verb × content type: no 5xx, Status 4xx, objects read back, /readyz 200', async () => {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  console.log(`fuzz: seed ${seed} (replay: FUZZ_SEED=${seed} node --import tsx test/run.ts test/fuzz.test.ts, or npm run fuzz -- --seed ${seed})`);
  const started = Date.now();
  const r = await runFuzz({ ms: Number(process.env.FUZZ_MS ?? 55_000), maxRuns: 4000, seed });
  console.log(`fuzz: ${r.requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ${r.readBacks} read-backs; statuses ${JSON.stringify(r.statuses)}`);
  assert.ok(!r.failure, `seed ${seed}: ${r.failure}`);
  assert.ok(r.requests >= 500, `only ${r.requests} requests`);
  assert.ok((r.statuses['201'] ?? 0) > 0 && (r.statuses['200'] ?? 0) > 0, `no request succeeded: ${JSON.stringify(r.statuses)}`);
});

test.run();
