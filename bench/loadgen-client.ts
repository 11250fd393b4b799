/**
 * The Go load generator (bench/loadgen) as the benches drive it: built once into a temp dir with
 * the Go proxy's modules cached in .cache/go, run once per mode with a JSON config, its JSON result
 * read from stdout; and the admin TLS files of a kubeconfig (both servers write inline data).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { goEnv } from '../test/go-env.ts';
import { spawnTracked } from './util.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** Server URL and PEM file paths of the admin client. */
export interface TlsFiles {
  server: string;
  ca: string;
  cert: string;
  key: string;
}

/** Build bench/loadgen into `dir/name`; returns the binary's path. */
export function buildLoadgen(dir: string, name: string, log: (s: string) => void): string {
  const bin = join(dir, name);
  log('building bench/loadgen (Go; modules through the Go proxy into .cache/go)');
  const r = spawnSync('go', ['build', '-o', bin, '.'], { cwd: join(ROOT, 'bench', 'loadgen'), env: goEnv(), stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`go build of bench/loadgen failed (${r.status ?? r.error})`);
  return bin;
}

/** Run the generator in one mode (under `taskset -c cpus` when given); resolves with its JSON result. */
export function runLoadgen<T>(bin: string, mode: string, tls: TlsFiles, params: Record<string, unknown>, cpus?: string): Promise<T> {
  return new Promise((resolveP, reject) => {
    const argv = [JSON.stringify({ mode, ...tls, ...params })];
    const proc = cpus ? spawnTracked('taskset', ['-c', cpus, bin, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] }) : spawnTracked(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`loadgen ${mode} exited with ${code}: ${err.trim().slice(-2000)}`));
      try {
        resolveP(JSON.parse(out) as T);
      } catch (e) {
        reject(new Error(`loadgen ${mode}: unreadable output ${out.slice(0, 300)} (${(e as Error).message})`));
      }
    });
  });
}

/** ca/cert/key of a kubeconfig (inline data, as both servers write them) into PEM files. */
export function tlsFromKubeconfig(kubeconfig: string, dir: string): TlsFiles {
  const kc = parseYaml(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const cluster = kc.clusters[0]!.cluster;
  const user = kc.users[0]!.user;
  mkdirSync(dir, { recursive: true });
  const write = (name: string, b64: string) => {
    const p = join(dir, name);
    writeFileSync(p, Buffer.from(b64, 'base64'), { mode: 0o600 });
    return p;
  };
  return { server: cluster.server, ca: write('ca.crt', cluster['certificate-authority-data']), cert: write('admin.crt', user['client-certificate-data']), key: write('admin.key', user['client-key-data']) };
}
