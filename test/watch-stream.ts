/**
 * A JSON watch stream reader for the integration suites: one parsed event per line, and
 * `waitFor(n)` to await the n-th event (or the stream's end, or a timeout).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';

export interface WatchEvent {
  type: string;
  object: any;
}

/** An mTLS agent presenting the admin certificate of a PKI directory. */
export function adminAgentFor(pkiDir: string): Agent {
  return new Agent({ connect: { ca: readFileSync(join(pkiDir, 'ca.crt')), cert: readFileSync(join(pkiDir, 'admin.crt')), key: readFileSync(join(pkiDir, 'admin.key')) } });
}

export interface WatchStream {
  status: number;
  events: WatchEvent[];
  waitFor(n: number, ms?: number): Promise<WatchEvent[]>;
  isEnded(): boolean;
  close(): void;
}

export async function openWatchStream(url: string, agent: Agent, path: string): Promise<WatchStream> {
  const r = await request(url + path, { dispatcher: agent, headers: { accept: 'application/json' } });
  const events: WatchEvent[] = [];
  let buf = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  const wake = (): void => waiters.splice(0).forEach((w) => w());
  r.body.on('data', (c: Buffer) => {
    buf += c.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) events.push(JSON.parse(line));
    }
    wake();
  });
  r.body.on('end', () => {
    ended = true;
    wake();
  });
  r.body.on('error', () => undefined);
  return {
    status: r.statusCode,
    events,
    async waitFor(n, ms = 5000) {
      const deadline = Date.now() + ms;
      while (events.length < n && !ended && Date.now() < deadline) {
        await new Promise<void>((res) => {
          waiters.push(res);
          setTimeout(res, 100);
        });
      }
      return events;
    },
    isEnded: () => ended,
    close: () => r.body.destroy(),
  };
}
