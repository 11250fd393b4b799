/**
 * Shared pieces of the Kafka suites: API replicas as child processes on one topic (sharing one
 * PKI so one client certificate works everywhere), and a JSON watch stream reader.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
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

export interface WatchEvent {
  type: string;
  object: any;
}

/** A JSON watch stream; `waitFor(n)` resolves once n events arrived (or the stream ended / timed out). */
export async function openWatch(url: string, pkiDir: string, path: string) {
  const agent = new Agent({ connect: { ca: readFileSync(join(pkiDir, 'ca.crt')), cert: readFileSync(join(pkiDir, 'admin.crt')), key: readFileSync(join(pkiDir, 'admin.key')) } });
  const r = await request(url + path, { dispatcher: agent, headers: { accept: 'application/json' } });
  const events: WatchEvent[] = [];
  let buf = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  r.body.on('data', (c: Buffer) => {
    buf += c.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) events.push(JSON.parse(line));
    }
    waiters.splice(0).forEach((w) => w());
  });
  r.body.on('end', () => {
    ended = true;
    waiters.splice(0).forEach((w) => w());
  });
  r.body.on('error', () => undefined);
  return {
    status: r.statusCode,
    events,
    async waitFor(n: number, ms = 10_000): Promise<WatchEvent[]> {
      const deadline = Date.now() + ms;
      while (events.length < n && !ended && Date.now() < deadline) {
        await new Promise<void>((res) => {
          waiters.push(res);
          setTimeout(res, 100);
        });
      }
      return events;
    },
    async close() {
      r.body.destroy();
      await agent.close();
    },
  };
}

export const cm = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
