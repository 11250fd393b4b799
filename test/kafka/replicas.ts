/**
 * Shared pieces of the Kafka suites: API replicas as child processes on one topic (sharing one
 * PKI so one client certificate works everywhere), and a JSON watch stream reader.
 */
import { join } from 'node:path';
import { adminAgentFor, openWatchStream } from '../watch-stream.ts';
import { spawnServer, clientFor, tempDir, type ChildServer, type Client } from '../harness.ts';

export interface Replica {
  server: ChildServer;
  client: Client;
  dataDir: string;
}

export interface ReplicaSet {
  pkiDir: string;
  log: string;
  start(dataDir?: string, port?: number, extra?: string[]): Promise<Replica>;
}

/** Replicas on `kafka://<bootstrap>/<topic>`; all share `pkiDir`. */
export function replicaSet(bootstrap: string, topic: string, extraArgs: string[] = []): ReplicaSet {
  const pkiDir = join(tempDir('kafka-pki-'), 'pki');
  const log = `kafka://${bootstrap}/${topic}`;
  return {
    pkiDir,
    log,
    async start(dataDir = tempDir('kafka-replica-'), port = 0, extra: string[] = []) {
      const server = await spawnServer(dataDir, port, ['--log', log, '--pki-dir', pkiDir, ...extraArgs, ...extra]);
      return { server, client: clientFor(server.url, pkiDir), dataDir };
    },
  };
}

/** A JSON watch stream on replica `url`, as the admin of the shared PKI. */
export async function openWatch(url: string, pkiDir: string, path: string) {
  const agent = adminAgentFor(pkiDir);
  const stream = await openWatchStream(url, agent, path);
  return {
    ...stream,
    waitFor: (n: number, ms = 10_000) => stream.waitFor(n, ms),
    async close() {
      stream.close();
      await agent.close();
    },
  };
}

/** Kill every replica, then the cluster. */
export async function stopAll(replicas: Replica[], kafka: { stop(): Promise<void> } | undefined): Promise<void> {
  for (const r of replicas) {
    await r.client.close().catch(() => undefined);
    await r.server.kill('SIGKILL').catch(() => undefined);
  }
  await kafka?.stop();
}

/** The warnings and errors each replica logged lately (for a failing test's output). */
export function printLogTails(replicas: Replica[]): void {
  for (const [i, r] of replicas.entries()) {
    const lines = r.server.logTail().split('\n').filter((l) => !l.includes('"level":30'));
    console.error(`--- replica ${i} log tail ---\n${lines.slice(-40).join('\n')}`);
  }
}

/** Run a suite's setup; uvu does not print a failing hook's error, so print it here. */
export async function setup(f: () => Promise<void>): Promise<void> {
  try {
    await f();
  } catch (err) {
    console.error('setup failed:', err);
    throw err;
  }
}

export const cm = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
