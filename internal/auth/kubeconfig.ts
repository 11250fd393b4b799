/**
 * kubeconfig files for clients of this server (kubectl, client-go, the Python and JS clients):
 * one cluster with inline CA data, one user with an inline client certificate, one context.
 */
import { promises as fsp } from 'node:fs';
import { isIP } from 'node:net';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** https URL of the API server, or host[:port] / [v6]:port (then https is assumed). */
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  cluster?: string;
  user?: string;
  context?: string;
}

/**
 * URL for a listen address. Unspecified bind addresses (0.0.0.0, ::, empty) become the matching
 * loopback address, which clients can connect to and the serving certificate covers; IPv6
 * literals are bracketed: serverUrl('::', 6443) === 'https://[::1]:6443'.
 */
export function serverUrl(host: string, port: number): string {
  let h = host.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === '' || h === '0.0.0.0') h = '127.0.0.1';
  else if (h === '::' || h === '::0' || h === '0:0:0:0:0:0:0:0') h = '::1';
  return `https://${isIP(h) === 6 ? `[${h}]` : h}:${port}`;
}

/**
 * Make `server` a valid URL: add https:// when missing and bracket a bare IPv6 literal
 * (`https://::1:6443` → `https://[::1]:6443`). An unbracketed v6 literal is ambiguous: a trailing
 * `:digits` is read as the port whenever what precedes it is itself an IPv6 address.
 */
export function normalizeServerUrl(server: string): string {
  const s = server.trim();
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)?([^/]*)(\/.*)?$/.exec(s);
  if (!m) return s;
  const scheme = m[1] ?? 'https://';
  let authority = m[2] ?? '';
  const rest = m[3] ?? '';
  if (!authority.startsWith('[') && (authority.match(/:/g)?.length ?? 0) >= 2) {
    const pm = /^(.*):(\d{1,5})$/.exec(authority);
    if (pm && isIP(pm[1]!) === 6) authority = `[${pm[1]}]:${pm[2]}`;
    else if (isIP(authority) === 6) authority = `[${authority}]`;
  }
  return scheme + authority + rest;
}

const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/** A standard `kind: Config` document with one cluster, user and context (the current one). */
export function kubeconfigYaml(opts: KubeconfigOptions): string {
  const cluster = opts.cluster ?? 'kubernetes';
  const user = opts.user ?? 'kubernetes-admin';
  const context = opts.context ?? `${user}@${cluster}`;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster: {
          server: normalizeServerUrl(opts.server),
          'certificate-authority-data': b64(opts.caPem),
        },
      },
    ],
    users: [
      {
        name: user,
        user: {
          'client-certificate-data': b64(opts.certPem),
          'client-key-data': b64(opts.keyPem),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster, user } }],
    'current-context': context,
    preferences: {},
  };
  // lineWidth 0: never fold the long base64 scalars.
  return stringify(doc, { lineWidth: 0 });
}

/** Write a kubeconfig (mode 0600, atomically via a temp file); creates the parent directory. */
export async function writeKubeconfig(file: string, opts: KubeconfigOptions): Promise<void> {
  const text = kubeconfigYaml(opts);
  await fsp.mkdir(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fsp.writeFile(tmp, text, { mode: 0o600 });
    await fsp.chmod(tmp, 0o600);
    await fsp.rename(tmp, file);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}
