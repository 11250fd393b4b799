/**
 * Server CPU per TLS handshake of the secure port (`node --import tsx bench/handshake.ts`, issue 24's overload
 * goal: a burst of 2,000 connections is 2,000 handshakes before a probe's own).
 *
 *   node --import tsx bench/handshake.ts [--connections 400] [--rounds 3] [--concurrency 4]
 *        [--variants before,now,...] [--client node|go]
 *
 * Every variant is a child process serving one trivial HTTP/1.1 answer with the server's real TLS
 * setup (internal/auth/tls-options.ts, internal/http/server.ts createServer, this PKI: ECDSA P-256
 * serving certificate, client certificates requested); all children live through the whole run and
 * the rounds alternate between them (the machine is shared: a load change hits every variant alike).
 * A round opens --connections fresh TLS connections to each variant (--concurrency at a time), each
 * sending one GET and reading its answer; the variant's CPU is its process's utime+stime
 * (/proc/<pid>/stat) over the round, divided by the connections. The client offers what Go 1.26's
 * crypto/tls offers (TLS 1.3, key shares X25519MLKEM768 + X25519), no client certificate unless the
 * variant says so (`+cert`: the admin's, as kubectl sends). Variants (options over secureServerOptions):
 *   now         the secure port as served (createServer, secureServerOptions)
 *   before      as served before 2026-11-29: OpenSSL's default groups (X25519MLKEM768 first) and
 *               the serving certificate alone (OpenSSL built the chain on every handshake)
 *   groups      before + kube's groups only;  chain  before + the explicit chain only
 *   nocert      now without requestCert (breakdown only: kube asks for client certificates)
 *   tls         node:tls server with the options of `now`, no HTTP objects (breakdown only)
 *   now+cert, before+cert   the client presenting the admin certificate
 */
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    variants: { type: 'string', default: 'before,now,groups,chain,before+cert,now+cert' },
    serve: { type: 'string' },
    pki: { type: 'string' },
  },
  strict: true,
});

interface Variant {
  server: 'http' | 'tls';
  /** OpenSSL's default groups instead of KUBE_GROUPS. */
  defaultGroups?: boolean;
  /** The serving certificate alone instead of its chain. */
  leafOnly?: boolean;
  requestCert?: boolean;
  clientCert?: boolean;
}
const VARIANTS: Record<string, Variant> = {
  now: { server: 'http' },
  before: { server: 'http', defaultGroups: true, leafOnly: true },
  groups: { server: 'http', leafOnly: true },
  chain: { server: 'http', defaultGroups: true },
  nocert: { server: 'http', requestCert: false },
  tls: { server: 'tls' },
  'now+cert': { server: 'http', clientCert: true },
  'before+cert': { server: 'http', defaultGroups: true, leafOnly: true, clientCert: true },
};

async function serve(name: string, pkiDir: string): Promise<void> {
  const v = VARIANTS[name]!;
  const { ensurePki } = await import('../internal/auth/pki.ts');
  const { secureServerOptions } = await import('../internal/auth/tls-options.ts');
  const pki = await ensurePki(pkiDir);
  const opts = { ...secureServerOptions(pki), ...(v.defaultGroups ? { ecdhCurve: 'auto' } : {}), ...(v.leafOnly ? { cert: pki.serverCertPem } : {}), ...(v.requestCert === false ? { requestCert: false } : {}) };
  let server;
  if (v.server === 'http') {
    const { createServer } = await import('../internal/http/server.ts');
    server = createServer(pki, (async (_req: unknown, res: { writeHead(c: number, h: object): void; end(b: string): void }) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
      res.end('ok');
    }) as never);
    server.setSecureContext(opts);
    // The TLS server reads requestCert at construction (setSecureContext sets only the context).
    if (v.requestCert === false) (server as unknown as { requestCert: boolean }).requestCert = false;
  } else {
    server = tls.createServer(opts, (sock) => {
      sock.once('data', () => sock.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok'));
      sock.on('error', () => undefined);
    });
  }
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
}

/** utime and stime (fields 14, 15 of /proc/<pid>/stat), in clock ticks. */
function cpuTicks(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(f[11]), Number(f[12])];
}

async function main(): Promise<void> {
  const names = args.variants!.split(',');
  const n = Number(args.connections);
  const rounds = Number(args.rounds);
  const conc = Number(args.concurrency);
  const pkiDir = mkdtempSync(join(tmpdir(), 'handshake-pki-'));
  const { ensurePki } = await import('../internal/auth/pki.ts');
  const pki = await ensurePki(pkiDir);
  const children = new Map<string, { pid: number; port: number; kill(): void }>();
  for (const name of names) {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', name, '--pki', pkiDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
    children.set(name, { pid: child.pid!, port, kill: () => child.kill() });
  }
  const hz = 100; // USER_HZ
  const results: Record<string, number[]> = Object.fromEntries(names.map((x) => [x, []]));
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${n} connections per variant per round, ${rounds} rounds, concurrency ${conc}; node ${process.version}, OpenSSL ${process.versions.openssl}`);
  for (let r = 0; r < rounds; r++) {
    for (const name of names) {
      const c = children.get(name)!;
      const v = VARIANTS[name]!;
      // Settle: a few connections first (lazy initialization), not counted.
      await connectMany(c.port, 8, conc, v.clientCert ? pki : undefined);
      const t0 = cpuTicks(c.pid);
      const w0 = performance.now();
      await connectMany(c.port, n, conc, v.clientCert ? pki : undefined);
      const t1 = cpuTicks(c.pid);
      const perConn = (ticks: number) => (ticks / hz / n) * 1e6;
      const us = perConn(t1[0] + t1[1] - t0[0] - t0[1]);
      results[name]!.push(us);
      console.log(`round ${r + 1} ${name.padEnd(16)} ${us.toFixed(0).padStart(5)} µs server CPU per connection (user ${perConn(t1[0] - t0[0]).toFixed(0)}, system ${perConn(t1[1] - t0[1]).toFixed(0)}; wall ${((performance.now() - w0) / n).toFixed(2)} ms each; load ${load()})`);
    }
  }
  console.log('\nmedian µs server CPU per connection:');
  for (const name of names) {
    const s = [...results[name]!].sort((a, b) => a - b);
    console.log(`  ${name.padEnd(16)} ${s[Math.floor(s.length / 2)]!.toFixed(0).padStart(5)}   (rounds: ${results[name]!.map((x) => x.toFixed(0)).join(', ')})`);
  }
  for (const c of children.values()) c.kill();
}

async function connectMany(port: number, n: number, conc: number, cert?: { adminCertPem: string; adminKeyPem: string; caCertPem: string }): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await oneConnection(port, cert);
    }
  };
  await Promise.all(Array.from({ length: conc }, worker));
}

const shown = new Set<number>();
function oneConnection(port: number, cert?: { adminCertPem: string; adminKeyPem: string; caCertPem: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = tls.connect({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      // Go 1.26 crypto/tls: key shares for X25519MLKEM768 and X25519, then the classic groups.
      ecdhCurve: 'X25519MLKEM768:X25519:P-256:P-384:P-521',
      session: undefined,
      ...(cert ? { cert: cert.adminCertPem, key: cert.adminKeyPem } : {}),
    });
    sock.once('secureConnect', () => {
      if (process.env.HANDSHAKE_SHOW_GROUP && !shown.has(port) && shown.add(port)) console.log('  negotiated', sock.getProtocol(), sock.getEphemeralKeyInfo(), sock.getCipher().name);
      sock.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    });
    sock.on('data', () => undefined);
    sock.once('end', () => {
      sock.destroy();
      resolve();
    });
    sock.once('error', reject);
  });
}

if (args.serve) void serve(args.serve, args.pki!);
else await main();
