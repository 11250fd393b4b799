/**
 * `npm run bench:cores` (bench/cores.ts) at CI speed: its `--plan` (argument parsing, the CPU sets
 * it pins the servers and the load generator to with taskset, and its detection of this server's
 * `--workers` flag) and its refusal of bad arguments. The bench itself is minutes long and runs by
 * hand. Runs the bench script as a child process (test/ does not import bench/).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const bench = (...argv: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'bench/cores.ts', ...argv], { cwd: root, encoding: 'utf8', timeout: 120_000 });
const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

test('--plan: server on core 0 then cores 0-1, the generator on the other core then shared; --workers detected as declared', () => {
  if (availableParallelism() < 2 || !hasTaskset) {
    console.log('fewer than 2 CPUs or no taskset here: --plan not checked');
    return;
  }
  const r = bench('--plan', '--quick', '--workers-list', '1,3');
  assert.is(r.status, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  const first = plan.allowedCpus[0];
  assert.equal(plan.sets['1'].server, String(first));
  assert.not.ok(plan.sets['1'].generator.split(',').includes(String(first)), 'the generator leaves the 1-core server its core');
  assert.is(plan.sets['2'].server, plan.allowedCpus.slice(0, 2).join(','));
  assert.is(plan.sets['2'].shared, plan.allowedCpus.length === 2);
  assert.equal(plan.workersList, [1, 3]);
  assert.is(plan.cfg.rounds, 1);
  assert.is(plan.cfg.objects, 2000);
  // Two independent readings of cmd/apiserver.ts: what its parser does with the flag, and its declared options.
  const declared = /^\s+'?workers'?: \{ type: '(?:string|boolean)'/m.test(readFileSync(`${root}cmd/apiserver.ts`, 'utf8'));
  assert.is(plan.workers.this.supported, declared, plan.workers.this.how);
  assert.not.match(plan.workers.this.how, /undetermined/);
});

test('bad arguments are refused before anything starts', () => {
  for (const argv of [['--workers-list', '1'], ['--workers-list', '1,x'], ['--rounds', '0'], ['--connections', '200'], ['--no-such']]) {
    const r = bench(...argv, '--plan');
    assert.is.not(r.status, 0, `${argv.join(' ')} accepted`);
    assert.ok(r.stderr.length > 0);
  }
});

test.run();
