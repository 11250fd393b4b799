/**
 * `npm run fuzz -- [--minutes N] [--seed S] [--runs N]`: the fuzzer for longer than CI's budget
 * (default 10 minutes), against a fresh server (or `--kubeconfig F`, e.g. the reference). Prints
 * the seed first, and on a failure the shrunk counterexample; exits 1 then. `--keep-going` logs
 * each distinct violation and goes on (no shrinking), to survey many bugs in one run.
 */
import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz.ts';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, seed: { type: 'string' }, runs: { type: 'string' }, kubeconfig: { type: 'string' }, 'keep-going': { type: 'boolean' } } });
const seed = values.seed !== undefined ? Number(values.seed) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
console.log(`fuzz: seed ${seed} (reproduce with --seed ${seed})`);
const r = await runFuzz({ ms: Number(values.minutes) * 60_000, maxRuns: values.runs ? Number(values.runs) : Infinity, seed, kubeconfig: values.kubeconfig, keepGoing: values['keep-going'] });
console.log(`fuzz: ${r.requests} requests, ${r.readBacks} read-backs, ${r.stored} stored objects; statuses ${JSON.stringify(r.statuses)}`);
if (r.failure) {
  console.log(`fuzz: FAILED (seed ${seed})\n${r.failure}`);
  process.exit(1);
}
console.log(`fuzz: passed (seed ${seed})`);
