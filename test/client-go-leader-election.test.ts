/**
 * client-go v0.24.17 leader election on coordination.k8s.io/v1 Leases (test/go/leader-client,
 * tools/leaderelection with a LeaseLock over Protobuf; lease 2 s, renew deadline 1.5 s, retry
 * 0.5 s): two contenders started together elect exactly one; the other observes it and stays a
 * follower while the leader renews; when the leader is killed (no release), the follower takes
 * over once the lease has expired, with leaseTransitions counted by the Lease; a leader whose
 * context is cancelled with ReleaseOnCancel=false stops leading and leaves the Lease held.
 *
 * The program is built through the Go module proxy into .cache/go (test/go-env.ts). Runs against
 * this server, or against any cluster with TEST_KUBECONFIG (test/target.ts):
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/client-go-leader-election.test.ts
 * A missing Go toolchain or module proxy fails the suite (never a silent skip).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { goEnv, goProgram } from './go-env.ts';
import { startTarget, type Target } from './target.ts';
import { show } from './assertions.ts';

const PROGRAM = goProgram('leader-client');
const LEASE = 'leader-election';
/** The program's LeaseDuration. */
const LEASE_MS = 2000;

/** One line the program prints. */
interface LeaderEvent {
  event: 'started' | 'leading' | 'leader' | 'stopped' | 'exited' | 'error';
  id: string;
  leader?: string;
  error?: string;
  /** Unix milliseconds when the program printed it. */
  at: number;
}

/** A running contender: its events so far, and a way to wait for one. */
class Contender {
  readonly events: LeaderEvent[] = [];
  private stderr = '';
  private waiters: (() => void)[] = [];
  private readonly exited: Promise<void>;

  constructor(
    readonly id: string,
    readonly proc: ChildProcess,
  ) {
    proc.stderr!.on('data', (b: Buffer) => (this.stderr = (this.stderr + b).slice(-8000)));
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      this.events.push(JSON.parse(l) as LeaderEvent);
      for (const w of this.waiters.splice(0)) w();
    });
    this.exited = new Promise((r) => proc.on('exit', () => r()));
  }

  has(pred: (e: LeaderEvent) => boolean): boolean {
    return this.events.some(pred);
  }

  /** The first event matching `pred`, waiting up to `ms` for it. */
  async waitFor(what: string, pred: (e: LeaderEvent) => boolean, ms: number): Promise<LeaderEvent> {
    const deadline = Date.now() + ms;
    for (;;) {
      const e = this.events.find(pred);
      if (e) return e;
      const left = deadline - Date.now();
      if (left <= 0) assert.unreachable(`${this.id}: no ${what} within ${ms} ms; events ${JSON.stringify(this.events)}; stderr ${this.stderr}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(timer), r()));
      });
    }
  }

  async kill(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    await this.exited;
  }
}

let t: Target;
let bin: string;
let binDir: string;
let ns: string;
const contenders: Contender[] = [];

test.before(async () => {
  binDir = mkdtempSync(path.join(tmpdir(), 'leader-client-'));
  bin = path.join(binDir, 'leader-client');
  await promisify(execFile)('go', ['build', '-o', bin, '.'], { cwd: PROGRAM, env: goEnv(), timeout: 9 * 60 * 1000 });
  t = await startTarget();
  ns = await t.createNamespace('leader');
});
test.after(async () => {
  for (const c of contenders) await c.kill();
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
  rmSync(binDir, { recursive: true, force: true });
});

const start = (id: string): Contender => {
  const c = new Contender(id, spawn(bin, [t.kubeconfig, ns, LEASE, id], { stdio: ['pipe', 'pipe', 'pipe'] }));
  contenders.push(c);
  return c;
};
const getLease = async (): Promise<any> => {
  const r = await t.client.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE}`);
  assert.is(r.status, 200, show(r));
  return r.json;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('two contenders elect one; the follower takes over when the leader dies; a cancelled leader keeps the Lease', async () => {
  const [a, b] = [start('contender-a'), start('contender-b')];
  const leading = (e: LeaderEvent) => e.event === 'leading';
  const first = await Promise.race([a.waitFor('leading', leading, 30_000), b.waitFor('leading', leading, 30_000)]);
  const [leader, follower] = first.id === a.id ? [a, b] : [b, a];
  await follower.waitFor(`observed leader ${leader.id}`, (e) => e.event === 'leader' && e.leader === leader.id, 10_000);

  // More than a lease duration: the leader renews, the follower never leads.
  await sleep(LEASE_MS + 1000);
  assert.not.ok(follower.has(leading), `${follower.id} led while ${leader.id} renewed: ${JSON.stringify(follower.events)}`);
  let l = await getLease();
  assert.is(l.spec.holderIdentity, leader.id);
  assert.is(l.spec.leaseDurationSeconds, LEASE_MS / 1000);
  assert.is(l.spec.leaseTransitions, 0);
  assert.ok(Date.parse(l.spec.renewTime) > Date.parse(l.spec.acquireTime), `renewed since acquired: ${JSON.stringify(l.spec)}`);

  // The leader dies without releasing: the follower waits for the lease to expire, then takes it.
  const killedAt = Date.now();
  await leader.kill();
  const took = await follower.waitFor('leading after the leader died', leading, 15_000);
  const takeover = took.at - killedAt;
  console.log(`takeover ${takeover} ms after the leader was killed (lease ${LEASE_MS} ms)`);
  assert.ok(takeover >= LEASE_MS - 1000, `took over at ${takeover} ms, before the lease could expire`);
  l = await getLease();
  assert.is(l.spec.holderIdentity, follower.id);
  assert.is(l.spec.leaseTransitions, 1);

  // Cancelled with ReleaseOnCancel=false: stops leading, the Lease stays held by it.
  const renewed = l.spec.renewTime;
  follower.proc.stdin!.write('stop\n');
  await follower.waitFor('stopped', (e) => e.event === 'stopped', 10_000);
  await follower.waitFor('exited', (e) => e.event === 'exited', 10_000);
  // A renewal in flight when the context was cancelled may still land (the server finishes a
  // request its client abandoned); give it time before reading.
  await sleep(500);
  l = await getLease();
  assert.is(l.spec.holderIdentity, follower.id, 'not released');
  assert.ok(Date.parse(l.spec.renewTime) >= Date.parse(renewed));
  await sleep(1000);
  assert.is((await getLease()).spec.renewTime, l.spec.renewTime, 'no longer renewed');
});

test.run();
