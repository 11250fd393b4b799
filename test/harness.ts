/**
 * Test harness: real servers on ephemeral ports over real TLS, in-process or as a child process
 * (for kill -9 tests), and a small HTTPS client presenting the admin certificate.
 */
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request as undiciRequest } from 'undici';
import { startServer, type RunningServer, type ServerOptions } from '../internal/app/app.ts';
import { nodeArgsFor } from './server-command.ts';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body (undefined when not JSON). */
  json: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body bytes/string, sent as is. */
  raw?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface Client {
  request(method: string, path: string, opts?: RequestOptions): Promise<HttpResult>;
  close(): Promise<void>;
}

/**
 * Poll `fn` every 100 ms until it is true; after `ms`, fail the test (after `onTimeout`, e.g. to
 * print the servers' logs). For what settles asynchronously: controllers, caches, the fold.
 */
export async function eventually(what: string, fn: () => Promise<boolean>, ms = 15_000, onTimeout?: () => void): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) {
      onTimeout?.();
      throw new Error(`timed out waiting for ${what} (${ms} ms)`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function tempDir(prefix = 'apiserver-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** HTTPS client using a data dir's CA and the admin (or given) client certificate. */
export function clientFor(url: string, pkiDir: string, cert?: { certPem: string; keyPem: string } | null): Client {
  const ca = readFileSync(join(pkiDir, 'ca.crt'), 'utf8');
  const connect: Record<string, unknown> = { ca };
  if (cert !== null) {
    connect.cert = cert?.certPem ?? readFileSync(join(pkiDir, 'admin.crt'), 'utf8');
    connect.key = cert?.keyPem ?? readFileSync(join(pkiDir, 'admin.key'), 'utf8');
  }
  return agentClient(url, new Agent({ connect, connections: 128, pipelining: 1 }));
}

/**
 * A Client over an undici Agent at `baseUrl`; `auth` headers (e.g. a bearer token) go on every
 * request. Closing the client closes the agent.
 */
export function agentClient(baseUrl: string, agent: Agent, auth: Record<string, string> = {}): Client {
  return {
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { accept: 'application/json', ...auth, ...opts.headers };
      let body: string | Buffer | undefined;
      if (opts.raw !== undefined) body = opts.raw;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
      const r = await undiciRequest(baseUrl + path, { method: method as 'GET', headers, body, dispatcher: agent });
      const text = await r.body.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: r.statusCode, headers: r.headers as HttpResult['headers'], text, json };
    },
    close: () => agent.close(),
  };
}

export interface TestServer {
  server: RunningServer;
  dataDir: string;
  url: string;
  client: Client;
  close(): Promise<void>;
}

/**
 * TEST_WORKERS=N: every test server (in process and spawned) runs with `--workers N` (issue 28),
 * so a suite can be run against serving threads; a test's own `workers` option wins.
 */
export function testWorkers(): { workers?: number } {
  const n = Number(process.env.TEST_WORKERS ?? '');
  return Number.isInteger(n) && n > 1 ? { workers: n } : {};
}

/** Start a server in this process on a free port with its own data dir. */
export async function startTestServer(opts: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  // Kinds a test supplies (code, not data) cannot be sent to a serving thread (app/workers.ts): one thread then.
  const workers = opts.kinds ? {} : testWorkers();
  const server = await startServer({ dataDir, bindAddress: '127.0.0.1', securePort: 0, historyWindowMs: 300_000, logLevel: 'warn', ...workers, ...opts });
  const client = clientFor(server.url, join(dataDir, 'pki'));
  return {
    server,
    dataDir,
    url: server.url,
    client,
    async close() {
      await client.close();
      await server.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  port: number;
  dataDir: string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** The last 64 KiB the server wrote to stderr (its log), for failure messages. */
  logTail(): string;
}

/**
 * Run cmd/apiserver.ts as a child process; resolves once it logged "API server ready" (an info
 * line, so the log level is forced to info). A server that does not start is killed.
 */
export async function spawnServer(dataDir: string, port = 0, extraArgs: string[] = []): Promise<ChildServer> {
  const args = extraArgs.filter((a, i) => a !== '--log-level' && extraArgs[i - 1] !== '--log-level' && !a.startsWith('--log-level='));
  const workers = testWorkers().workers;
  if (workers && !args.some((a) => a === '--workers' || a.startsWith('--workers='))) args.push('--workers', String(workers));
  // The built dist/ JavaScript when fresh, else tsx (test/server-command.ts). APISERVER_CPU_PROF=<dir>:
  // write a V8 CPU profile of the server there (profiling benchmarks).
  const proc = spawn(process.execPath, [...nodeArgsFor('cmd/apiserver.ts', process.env.APISERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.APISERVER_CPU_PROF}`] : []), '--data-dir', dataDir, '--secure-port', String(port), '--log-level', 'info', ...args], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  let buf = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start: ${buf}`));
    }, 30_000);
    proc.stderr!.on('data', (c: Buffer) => {
      buf += c.toString();
      if (buf.length > 128 * 1024) buf = buf.slice(-64 * 1024);
      const m = /"url":"([^"]+)"[^\n]*API server ready/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${buf}`));
    });
  });
  return {
    proc,
    url,
    port: Number(new URL(url).port),
    dataDir,
    exited,
    async kill(signal = 'SIGTERM') {
      proc.kill(signal);
      await exited;
    },
    logTail: () => buf.slice(-64 * 1024),
  };
}

/**
 * A server process over one data directory kept across restarts: `start` spawns it (extra flags
 * allowed) and returns an admin client, `stop` sends SIGTERM and waits, `cleanup` stops and removes
 * the directory (a suite's after hook).
 */
export class RestartableServer {
  readonly dataDir: string;
  server: ChildServer | null = null;
  client: Client | null = null;

  constructor(prefix: string) {
    this.dataDir = tempDir(prefix);
  }

  async start(args: string[] = []): Promise<Client> {
    this.server = await spawnServer(this.dataDir, 0, args);
    this.client = clientFor(this.server.url, join(this.dataDir, 'pki'));
    return this.client;
  }

  async stop(): Promise<void> {
    await this.client?.close();
    await this.server?.kill('SIGTERM');
    this.client = null;
    this.server = null;
  }

  async cleanup(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
