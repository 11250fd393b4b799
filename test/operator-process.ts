/**
 * The operator of test/go/operator as the operator suites drive it (test/operator.test.ts against
 * a target, test/kafka/operator.test.ts across Kafka replicas): its build, its processes and the
 * JSON lines they print, and the Widgets it reconciles, seen over HTTP through one client.
 */
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { goEnv, goProgram } from './go-env.ts';
import { eventually, type Client } from './harness.ts';
import { show } from './assertions.ts';

export const CRD = 'widgets.demo.operator.test';
export const FINALIZER = 'demo.operator.test/configmap-cleanup';
/** The operator's Lease, in the namespace it watches. */
export const LEASE = 'widget-operator';
/** The operator's default LeaseDuration (its renew deadline is 3/4 of it) and RetryPeriod. */
export const LEASE_MS = 4000;
export const RETRY_MS = 500;

/** One line the operator prints. */
export interface OperatorEvent {
  event: 'established' | 'started' | 'leading' | 'finalizer-added' | 'reconciled' | 'finalized' | 'exited' | 'error';
  id: string;
  widget?: string;
  generation?: number;
  /** On "reconciled": what CreateOrUpdate did to the ConfigMap (created, updated, unchanged). */
  configMap?: string;
  error?: string;
  /** Unix milliseconds when the program printed it. */
  at: number;
}

export const reconciled =
  (widget: string, generation?: number) =>
  (e: OperatorEvent): boolean =>
    e.event === 'reconciled' && e.widget === widget && (generation === undefined || e.generation === generation);
/** Anything only a leader does. */
export const acts = (e: OperatorEvent): boolean => e.event === 'reconciled' || e.event === 'finalized' || e.event === 'finalizer-added';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Build the operator into GOPATH/bin (.cache/go/bin; go build leaves an up-to-date binary as it
 * is) and return the binary's path. The first build fetches controller-runtime through the module
 * proxy and compiles it (about a minute and a half on 2 cores).
 */
export async function buildOperator(): Promise<string> {
  const env = goEnv();
  const bin = path.join(env.GOPATH!, 'bin', 'widget-operator');
  const began = Date.now();
  await promisify(execFile)('go', ['build', '-o', bin, '.'], { cwd: goProgram('operator'), env, timeout: 9 * 60 * 1000 });
  console.log(`go build ${Date.now() - began} ms`);
  return bin;
}

/** A running operator instance: its events so far, and a way to wait for one. */
export class Operator {
  readonly events: OperatorEvent[] = [];
  private stderr = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;
  readonly proc: ChildProcess;

  /** Start `bin` against `kubeconfig`, watching `namespace`, printing `id` on its lines. */
  constructor(bin: string, kubeconfig: string, namespace: string, readonly id: string, leaseSeconds = LEASE_MS / 1000) {
    this.proc = spawn(bin, [kubeconfig, namespace, id, String(leaseSeconds)], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc.stderr!.on('data', (b: Buffer) => (this.stderr = (this.stderr + b).slice(-8000)));
    createInterface({ input: this.proc.stdout! }).on('line', (l) => {
      this.events.push(JSON.parse(l) as OperatorEvent);
      for (const w of this.waiters.splice(0)) w();
    });
    this.exited = new Promise((r) => this.proc.on('exit', (code) => r(code)));
  }

  count(pred: (e: OperatorEvent) => boolean): number {
    return this.events.filter(pred).length;
  }

  describe(): string {
    return `${this.id}: events ${JSON.stringify(this.events)}\nstderr ${this.stderr.slice(-3000)}`;
  }

  /** The first event matching `pred`, waiting up to `ms` for it. */
  async waitFor(what: string, pred: (e: OperatorEvent) => boolean, ms: number): Promise<OperatorEvent> {
    const deadline = Date.now() + ms;
    for (;;) {
      const e = this.events.find(pred);
      if (e) return e;
      if (this.events.some((x) => x.event === 'error')) assert.unreachable(`${this.id} failed before ${what}: ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) assert.unreachable(`${this.id}: no ${what} within ${ms} ms; ${this.describe()}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(timer), r()));
      });
    }
  }

  /** SIGTERM (the manager stops and releases the Lease); resolves to the exit code. */
  async stop(): Promise<number | null> {
    this.proc.kill('SIGTERM');
    return this.exited;
  }

  async kill(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    await this.exited;
  }
}

/** The Widgets of one namespace and what the operator makes of them, through one client. */
export class Widgets {
  constructor(
    private readonly client: Client,
    readonly ns: string,
    /** Printed when a wait times out (the operators' events and logs). */
    private readonly describe: () => string,
  ) {}

  path(name = ''): string {
    return `/apis/demo.operator.test/v1/namespaces/${this.ns}/widgets${name && '/' + name}`;
  }
  configMap(widget: string): string {
    return `/api/v1/namespaces/${this.ns}/configmaps/${widget}-widget`;
  }
  lease(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.ns}/leases/${LEASE}`;
  }

  async get(p: string): Promise<any> {
    const r = await this.client.request('GET', p);
    assert.is(r.status, 200, show(r));
    return r.json;
  }

  /** Merge-patch a Widget; returns the patched object. */
  async patch(name: string, body: unknown): Promise<any> {
    const r = await this.client.request('PATCH', this.path(name), { body, contentType: 'application/merge-patch+json' });
    assert.is(r.status, 200, show(r));
    return r.json;
  }

  /** The Widget once its status is Ready for `generation`. */
  async ready(name: string, generation: number): Promise<any> {
    let w: any;
    const isReady = async (): Promise<boolean> => {
      w = await this.get(this.path(name));
      const cond = (w.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
      return w.status?.observedGeneration === generation && cond?.status === 'True' && cond.observedGeneration === generation;
    };
    await eventually(`${name} Ready at generation ${generation}`, isReady, 20_000, () => console.log(this.describe()));
    return w;
  }

  /** Create a Widget, wait until it is Ready and return it with its ConfigMap. */
  async create(name: string, spec: Record<string, unknown>): Promise<{ w: any; cm: any }> {
    const r = await this.client.request('POST', this.path(), { body: { apiVersion: 'demo.operator.test/v1', kind: 'Widget', metadata: { name }, spec } });
    assert.is(r.status, 201, show(r));
    const w = await this.ready(name, 1);
    return { w, cm: await this.get(this.configMap(name)) };
  }

  /** Delete a Widget and wait until the finalizer ran and both it and its ConfigMap are gone. */
  async delete(name: string): Promise<void> {
    const r = await this.client.request('DELETE', this.path(name));
    assert.is(r.status, 200, show(r));
    const gone = async (p: string): Promise<boolean> => (await this.client.request('GET', p)).status === 404;
    await eventually(`${name} and its ConfigMap gone`, async () => (await gone(this.path(name))) && (await gone(this.configMap(name))), 20_000, () => console.log(this.describe()));
  }
}
