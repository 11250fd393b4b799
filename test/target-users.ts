/**
 * Users of a fidelity target: client certificates signed by the target's own CA (this server's
 * PKI, or the reference's `pki/ca.key` beside its kubeconfig, signed with openssl), HTTPS clients
 * presenting them, and kubeconfigs for kubectl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent } from 'undici';
import { agentClient, type Client } from './harness.ts';
import { readKubeconfig, type Target } from './target.ts';
import { ensurePki, issueClientCert, readCaKey } from '../internal/auth/pki.ts';

export interface CertPair {
  certPem: string;
  keyPem: string;
}

export class TargetUsers {
  private readonly tmp = mkdtempSync(join(tmpdir(), 'target-users-'));
  private readonly clients: Client[] = [];

  constructor(private readonly t: Target) {}

  /** A client certificate for `user` (CN) with `groups` (O) signed by the target's CA. */
  async cert(user: string, groups: string[] = []): Promise<CertPair> {
    const pkiDir = join(dirname(this.t.kubeconfig), 'pki');
    if (!this.t.reference) {
      const pki = await ensurePki(pkiDir);
      return issueClientCert(pki, await readCaKey(pki), user, groups);
    }
    const base = join(this.tmp, user.replace(/[^a-zA-Z0-9-]/g, '_'));
    const subj = `/CN=${user}${groups.map((g) => `/O=${g}`).join('')}`;
    execFileSync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subj], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', join(pkiDir, 'ca.crt'), '-CAkey', join(pkiDir, 'ca.key'), '-CAcreateserial', '-days', '1', '-out', `${base}.crt`], { stdio: 'ignore' });
    return { certPem: readFileSync(`${base}.crt`, 'utf8'), keyPem: readFileSync(`${base}.key`, 'utf8') };
  }

  /** An HTTPS client to the target presenting `cert` (none: anonymous). Closed by close(). */
  client(cert?: CertPair): Client {
    const k = readKubeconfig(this.t.kubeconfig);
    const c = agentClient(k.server, new Agent({ connect: { ca: k.ca, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}) } }));
    this.clients.push(c);
    return c;
  }

  /** A kubeconfig file for `cert` (named after `user`). */
  kubeconfig(user: string, cert: CertPair): string {
    const k = readKubeconfig(this.t.kubeconfig);
    const f = join(this.tmp, `${user.replace(/[^a-zA-Z0-9-]/g, '_')}.kubeconfig`);
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    writeFileSync(f, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${k.server}\n    certificate-authority-data: ${b64(k.ca)}\nusers:\n- name: u\n  user:\n    client-certificate-data: ${b64(cert.certPem)}\n    client-key-data: ${b64(cert.keyPem)}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`);
    return f;
  }

  async close(): Promise<void> {
    for (const c of this.clients) await c.close().catch(() => undefined);
  }
}
