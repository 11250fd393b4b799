import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { promises as fsp, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { ensurePki, issueClientCert, readCaKey, type Pki } from './pki.ts';
import { secureServerOptions, peerOf, servingChain } from './tls-options.ts';
import * as tls from 'node:tls';
import { x509Authenticator } from './authn.ts';
import { kubeconfigYaml, serverUrl, writeKubeconfig, normalizeServerUrl } from './kubeconfig.ts';
import { ApiError } from '../api/errors.ts';
import { parse as parseYaml } from 'yaml';

/**
 * Run a command with stdin closed (kubectl prompts for a username on a 401 without credentials
 * when stdin is open) and a hard timeout; rejects with { stdout, stderr, code } on failure.
 */
function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(Object.assign(e, { stdout, stderr }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(Object.assign(new Error(`${cmd} ${args.join(' ')} failed (${code ?? signal}): ${stderr}`), { stdout, stderr, code }));
    });
  });
}

let tmp = '';
let pkiDir = '';
let pki: Pki;
let genMs = 0;
let server: http2.Http2SecureServer | undefined;
let port = 0;
let server6: http2.Http2SecureServer | undefined;
let port6 = 0;

async function which(cmd: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
}

const authn = x509Authenticator();

function handler(req: http2.Http2ServerRequest | IncomingMessage, res: http2.Http2ServerResponse | ServerResponse): void {
  const peer = peerOf(req);
  Promise.resolve(authn.authenticate({ headers: req.headers, ...peer }))
    .then((user) => {
      const alpn = 'stream' in req ? (req.stream.session?.alpnProtocol ?? null) : null;
      const pathname = new URL(req.url ?? '/', 'https://x').pathname;
      if (pathname === '/') {
        // What `kubectl get --raw /` sees; only for authenticated callers so a success proves
        // that the client certificate was presented and verified.
        if (!user) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 401, reason: 'Unauthorized', metadata: {} }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ paths: ['/'] }));
        return;
      }
      if (pathname !== '/whoami') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', metadata: {} }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ user, httpVersion: req.httpVersion, alpn }));
    })
    .catch((err: unknown) => {
      const code = err instanceof ApiError ? err.code : 500;
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(err instanceof ApiError ? err.status : { message: String(err) }));
    });
}

async function listen(srv: http2.Http2SecureServer, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, host, () => resolve());
  });
  return (srv.address() as AddressInfo).port;
}

test.before(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'pki-test-'));
  pkiDir = path.join(tmp, 'nested', 'pki');
  const t0 = performance.now();
  pki = await ensurePki(pkiDir, { hosts: ['10.11.12.13', 'api.example.test', '[fd00::5]'] });
  genMs = performance.now() - t0;
  console.log(`  first-time PKI generation: ${genMs.toFixed(1)} ms`);

  server = http2.createSecureServer(secureServerOptions(pki), handler);
  port = await listen(server, '127.0.0.1');
  try {
    server6 = http2.createSecureServer(secureServerOptions(pki), handler);
    port6 = await listen(server6, '::1');
  } catch {
    server6 = undefined; // no IPv6 loopback here
  }
});

test.after(async () => {
  for (const s of [server, server6]) if (s) await new Promise<void>((r) => s.close(() => r()));
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

test('generates files with the right modes and formats', async () => {
  assert.is(statSync(pkiDir).mode & 0o777, 0o700);
  for (const f of ['ca.key', 'apiserver.key', 'admin.key']) {
    const p = path.join(pkiDir, f);
    assert.is(statSync(p).mode & 0o777, 0o600, f);
    const text = await fsp.readFile(p, 'utf8');
    assert.ok(text.startsWith('-----BEGIN PRIVATE KEY-----\n'), f);
    const k = createPrivateKey(text);
    assert.is(k.asymmetricKeyType, 'ec');
    assert.is(k.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  }
  for (const f of ['ca.crt', 'apiserver.crt', 'admin.crt']) {
    const text = await fsp.readFile(path.join(pkiDir, f), 'utf8');
    assert.ok(text.startsWith('-----BEGIN CERTIFICATE-----\n'), f);
  }
  assert.is(await fsp.readFile(path.join(pkiDir, 'ca.crt'), 'utf8'), pki.caCertPem);
  assert.is(await fsp.readFile(path.join(pkiDir, 'admin.key'), 'utf8'), pki.adminKeyPem);
  assert.is(pki.dir, pkiDir);
  assert.ok(genMs < 5000, `generation took ${genMs} ms`);
});

test('certificate contents', () => {
  const ca = new X509Certificate(pki.caCertPem);
  const srv = new X509Certificate(pki.serverCertPem);
  const adm = new X509Certificate(pki.adminCertPem);
  const now = Date.now();
  assert.ok(ca.ca);
  assert.ok(!srv.ca);
  assert.ok(!adm.ca);
  assert.ok(ca.verify(ca.publicKey));
  assert.ok(srv.verify(ca.publicKey));
  assert.ok(adm.verify(ca.publicKey));
  assert.ok(srv.checkIssued(ca));
  assert.ok(adm.checkIssued(ca));
  for (const c of [ca, srv, adm]) {
    assert.ok(parseInt(c.serialNumber[0]!, 16) < 8, `positive serial ${c.serialNumber}`);
    assert.ok(Date.parse(c.validFrom) < now - 10 * 60_000, 'backdated for clock skew');
  }
  assert.ok(Date.parse(ca.validTo) > now + 9 * 365 * 86400_000, 'CA ~10 years');
  assert.ok(Date.parse(srv.validTo) > now + 364 * 86400_000, 'serving >= 1 year');
  const sans = srv.subjectAltName ?? '';
  for (const want of ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:10.11.12.13', 'DNS:api.example.test', 'IP Address:FD00:0:0:0:0:0:0:5']) {
    assert.ok(sans.includes(want), `SAN ${want} in ${sans}`);
  }
  assert.ok(srv.checkHost('localhost'));
  assert.ok(srv.checkIP('127.0.0.1'));
  assert.ok(srv.checkIP('::1'));
  assert.equal(srv.keyUsage, ['1.3.6.1.5.5.7.3.1']); // Node names extKeyUsage "keyUsage"
  assert.equal(adm.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  assert.ok(adm.subject.includes('CN=admin'));
  assert.ok(adm.subject.includes('O=system:masters'));
  assert.ok(srv.publicKey.equals(createPublicKey(pki.serverKeyPem)));
  assert.ok(adm.publicKey.equals(createPublicKey(pki.adminKeyPem)));
});

test('reload is idempotent and never replaces the CA', async () => {
  const again = await ensurePki(pkiDir);
  assert.is(again.caCertPem, pki.caCertPem);
  assert.is(again.serverCertPem, pki.serverCertPem);
  assert.is(again.serverKeyPem, pki.serverKeyPem);
  assert.is(again.adminCertPem, pki.adminCertPem);
  assert.is(again.adminKeyPem, pki.adminKeyPem);
  // Concurrent callers on a fresh directory agree on one CA.
  const dir2 = path.join(tmp, 'concurrent');
  const all = await Promise.all([ensurePki(dir2), ensurePki(dir2), ensurePki(dir2)]);
  assert.is(all[1]!.caCertPem, all[0]!.caCertPem);
  assert.is(all[2]!.caCertPem, all[0]!.caCertPem);
  assert.is(all[2]!.serverCertPem, all[0]!.serverCertPem);
});

test('a new host re-issues only the serving cert, keeping old SANs', async () => {
  const dir3 = path.join(tmp, 'rehost');
  const first = await ensurePki(dir3, { hosts: ['192.0.2.1'] });
  const second = await ensurePki(dir3, { hosts: ['198.51.100.7'] });
  assert.is(second.caCertPem, first.caCertPem);
  assert.is(second.adminCertPem, first.adminCertPem);
  assert.is.not(second.serverCertPem, first.serverCertPem);
  const srv = new X509Certificate(second.serverCertPem);
  assert.ok(srv.checkIP('192.0.2.1'));
  assert.ok(srv.checkIP('198.51.100.7'));
  assert.ok(srv.checkIssued(new X509Certificate(first.caCertPem)));
  // A missing leaf is re-issued from the existing CA.
  await fsp.rm(path.join(dir3, 'admin.crt'));
  const third = await ensurePki(dir3);
  assert.is(third.caCertPem, first.caCertPem);
  assert.ok(new X509Certificate(third.adminCertPem).checkIssued(new X509Certificate(first.caCertPem)));
  // An incomplete CA is an error, not a silent regeneration.
  await fsp.rm(path.join(dir3, 'ca.key'));
  try {
    await ensurePki(dir3);
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.match(String(e), /incomplete CA/);
  }
});

// ---------------------------------------------------------------------------------------------
// real TLS

function h1Get(p: string, opts: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: p, method: 'GET', ca: pki.caCertPem, servername: 'localhost', ...opts },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('(a) HTTP/1.1 with the admin client certificate', async () => {
  const r = await h1Get('/whoami', { cert: pki.adminCertPem, key: pki.adminKeyPem });
  assert.is(r.status, 200);
  const body = JSON.parse(r.body);
  assert.is(body.httpVersion, '1.1');
  assert.is(body.user.username, 'admin');
  assert.equal(body.user.groups, ['system:masters', 'system:authenticated']);
});

test('(b) HTTP/2 with the admin client certificate', async () => {
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca: pki.caCertPem, cert: pki.adminCertPem, key: pki.adminKeyPem, servername: 'localhost' });
  try {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      session.on('error', reject);
      const s = session.request({ ':path': '/whoami' });
      let status = 0;
      let body = '';
      s.setEncoding('utf8');
      s.on('response', (h) => (status = Number(h[':status'])));
      s.on('data', (d) => (body += d));
      s.on('end', () => resolve({ status, body }));
      s.on('error', reject);
      s.end();
    });
    assert.is(session.alpnProtocol, 'h2');
    assert.is(status, 200);
    const b = JSON.parse(body);
    assert.is(b.alpn, 'h2');
    assert.is(b.httpVersion, '2.0');
    assert.is(b.user.username, 'admin');
    assert.equal(b.user.groups, ['system:masters', 'system:authenticated']);
  } finally {
    session.close();
  }
});

test('(c) no client certificate → no user', async () => {
  const r = await h1Get('/whoami');
  assert.is(r.status, 200);
  assert.is(JSON.parse(r.body).user, null);
  const denied = await h1Get('/');
  assert.is(denied.status, 401);
});

test('issued client certs: many groups; wrong CA and server-only EKU are rejected', async () => {
  const caKey = await readCaKey(pki);
  const c = await issueClientCert(pki, caKey, 'jane', ['dev', 'ops, with comma', 'team+x']);
  const r = await h1Get('/whoami', { cert: c.certPem, key: c.keyPem });
  const body = JSON.parse(r.body);
  assert.is(body.user.username, 'jane');
  assert.equal(body.user.groups, ['dev', 'ops, with comma', 'team+x', 'system:authenticated']);
  const noGroups = await issueClientCert(pki, caKey, 'solo', []);
  const r2 = JSON.parse((await h1Get('/whoami', { cert: noGroups.certPem, key: noGroups.keyPem })).body);
  assert.equal(r2.user, { username: 'solo', groups: ['system:authenticated'] });

  // Certificate from a foreign CA: handshake succeeds (rejectUnauthorized:false), request is 401.
  const other = await ensurePki(path.join(tmp, 'other-ca'));
  const bad = await h1Get('/whoami', { cert: other.adminCertPem, key: other.adminKeyPem });
  assert.is(bad.status, 401);
  assert.is(JSON.parse(bad.body).reason, 'Unauthorized');
  // The serving certificate (serverAuth only) is not a client certificate.
  const srvAsClient = await h1Get('/whoami', { cert: pki.serverCertPem, key: pki.serverKeyPem });
  assert.is(srvAsClient.status, 401);
});

test('(d) curl accepts the certificates (h1 and h2)', async () => {
  if (!(await which('curl'))) return console.log('  curl not found, skipped');
  const base = ['-sS', '--fail', '--max-time', '10', '--cacert', path.join(pkiDir, 'ca.crt'), '--cert', path.join(pkiDir, 'admin.crt'), '--key', path.join(pkiDir, 'admin.key')];
  const { stdout } = await run('curl', [...base, `https://127.0.0.1:${port}/whoami`]);
  assert.is(JSON.parse(stdout).user.username, 'admin');
  const h2 = await run('curl', [...base, '--http2', '--resolve', `localhost:${port}:127.0.0.1`, `https://localhost:${port}/whoami`]);
  const b = JSON.parse(h2.stdout);
  assert.is(b.alpn, 'h2');
  assert.equal(b.user.groups, ['system:masters', 'system:authenticated']);
  if (server6) {
    const v6 = await run('curl', [...base, `https://[::1]:${port6}/whoami`]);
    assert.is(JSON.parse(v6.stdout).user.username, 'admin');
  }
});

test('(e) openssl verify (also -x509_strict)', async () => {
  if (!(await which('openssl'))) return console.log('  openssl not found, skipped');
  const files = ['apiserver.crt', 'admin.crt'].map((f) => path.join(pkiDir, f));
  const ca = path.join(pkiDir, 'ca.crt');
  const a = await run('openssl', ['verify', '-CAfile', ca, ...files]);
  assert.match(a.stdout, /apiserver\.crt: OK/);
  assert.match(a.stdout, /admin\.crt: OK/);
  const b = await run('openssl', ['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', ca, files[0]!]);
  assert.match(b.stdout, /OK/);
  const c = await run('openssl', ['verify', '-x509_strict', '-purpose', 'sslclient', '-CAfile', ca, files[1]!]);
  assert.match(c.stdout, /OK/);
});

test('(f) kubectl (Go TLS) talks to the server with a generated kubeconfig', async () => {
  if (!(await which('kubectl'))) return console.log('  kubectl not found, skipped');
  const targets: string[] = [serverUrl('127.0.0.1', port), serverUrl('localhost', port)];
  if (server6) targets.push(serverUrl('::1', port6));
  for (const server of targets) {
    const file = path.join(tmp, `kubeconfig-${targets.indexOf(server)}`);
    await writeKubeconfig(file, { server, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem });
    assert.is(statSync(file).mode & 0o777, 0o600);
    const { stdout } = await run('kubectl', ['--kubeconfig', file, '--request-timeout=10s', '--cache-dir', path.join(tmp, 'kcache'), 'get', '--raw', '/'], {
      env: { ...process.env, KUBECONFIG: '', HOME: tmp },
    });
    assert.equal(JSON.parse(stdout), { paths: ['/'] }, server);
  }
  // Without a client certificate, Go also completes the handshake and gets our 401.
  const noCert = path.join(tmp, 'kubeconfig-nocert');
  const doc = parseYaml(kubeconfigYaml({ server: targets[0]!, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem }));
  // A token only keeps kubectl from prompting for a username; this server ignores bearer tokens.
  doc.users[0].user = { token: 'not-a-client-certificate' };
  await fsp.writeFile(noCert, JSON.stringify(doc));
  try {
    // -v=6 logs the response status.
    await run('kubectl', ['--kubeconfig', noCert, '--request-timeout=10s', '-v=6', 'get', '--raw', '/'], { env: { ...process.env, KUBECONFIG: '', HOME: tmp } });
    assert.unreachable('kubectl without a client cert should fail');
  } catch (e) {
    assert.match(String((e as { stderr?: string }).stderr ?? e), /401 Unauthorized/);
  }
});

test('(g) Python ssl (X509_STRICT) accepts the certificates', async () => {
  if (!(await which('python3'))) return console.log('  python3 not found, skipped');
  const script = `
import json, ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[1])
if hasattr(ssl, 'VERIFY_X509_STRICT'):
    ctx.verify_flags |= ssl.VERIFY_X509_STRICT
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
with urllib.request.urlopen(sys.argv[4], context=ctx, timeout=10) as r:
    print(r.read().decode())
`;
  const urls = [`https://localhost:${port}/whoami`];
  if (server6) urls.push(`https://[::1]:${port6}/whoami`);
  for (const url of urls) {
    // localhost may resolve to ::1 first; only 127.0.0.1 listens on \`port\`, so pin it.
    const u = url.includes('localhost') ? `https://127.0.0.1:${port}/whoami` : url;
    const { stdout } = await run('python3', ['-c', script, path.join(pkiDir, 'ca.crt'), path.join(pkiDir, 'admin.crt'), path.join(pkiDir, 'admin.key'), u]);
    assert.is(JSON.parse(stdout).user.username, 'admin');
  }
});

/** One TLS 1.3 connection as Go 1.26's crypto/tls opens it (key shares X25519MLKEM768 + X25519). */
function goLikeHandshake(p: number): Promise<{ group: string | undefined; chain: string[] }> {
  return new Promise((resolve, reject) => {
    const sock = tls.connect({ host: '127.0.0.1', port: p, servername: 'localhost', ca: pki.caCertPem, ALPNProtocols: ['http/1.1'], ecdhCurve: 'X25519MLKEM768:X25519:P-256:P-384:P-521' }, () => {
      const chain: string[] = [];
      for (let c: tls.DetailedPeerCertificate | undefined = sock.getPeerCertificate(true); c && c.subject; c = c.issuerCertificate === c ? undefined : c.issuerCertificate) chain.push(String(c.subject.CN));
      // The leaf's issuer link ends at the self-signed CA, which links to itself.
      const group = sock.getEphemeralKeyInfo() as { name?: string };
      sock.destroy();
      resolve({ group: group.name, chain });
    });
    sock.once('error', reject);
  });
}

test('TLS as kube-apiserver 1.24 serves it: X25519 (no ML-KEM hybrid), the serving certificate followed by its CA', async () => {
  // The reference (Go, tlsmlkem=0) answers a Go 1.26 client's X25519MLKEM768 + X25519 key shares
  // with X25519; the chain is the serving certificate and the CA, as OpenSSL built it before.
  const { group, chain } = await goLikeHandshake(port);
  assert.is(group, 'X25519');
  assert.equal(chain, ['kube-apiserver', new X509Certificate(pki.caCertPem).subject.replace(/^CN=/, '')]);
});

test('servingChain: issuers from the CA bundles up to the root; no issuer → the leaf alone; a given chain kept', async () => {
  const leafPem = pki.serverCertPem;
  const ca = new X509Certificate(pki.caCertPem);
  const chain = servingChain(leafPem, [pki.caCertPem]);
  const certs = chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
  assert.is(certs.length, 2);
  assert.is(new X509Certificate(certs[1]!).fingerprint256, ca.fingerprint256);
  // A client CA bundle that does not hold the serving CA (a --client-ca-file of another CA):
  // OpenSSL found no issuer in the store, so only the leaf was sent.
  const other = await ensurePki(path.join(tmp, 'other-pki'));
  assert.is(servingChain(leafPem, [other.caCertPem]), leafPem);
  // Bundles of several certificates are searched whole.
  assert.is(servingChain(leafPem, [other.caCertPem + pki.caCertPem]).match(/BEGIN CERTIFICATE/g)!.length, 2);
  assert.is(servingChain(chain, [pki.caCertPem]), chain);
});

test('kubeconfig shape and URL helpers', () => {
  const y = kubeconfigYaml({ server: 'https://[::1]:6443', caPem: 'CA', certPem: 'CERT', keyPem: 'KEY', cluster: 'c', user: 'u', context: 'x' });
  const doc = parseYaml(y);
  assert.is(doc.apiVersion, 'v1');
  assert.is(doc.kind, 'Config');
  assert.is(doc['current-context'], 'x');
  assert.equal(doc.clusters, [{ name: 'c', cluster: { server: 'https://[::1]:6443', 'certificate-authority-data': Buffer.from('CA').toString('base64') } }]);
  assert.equal(doc.users, [{ name: 'u', user: { 'client-certificate-data': Buffer.from('CERT').toString('base64'), 'client-key-data': Buffer.from('KEY').toString('base64') } }]);
  assert.equal(doc.contexts, [{ name: 'x', context: { cluster: 'c', user: 'u' } }]);
  assert.is(serverUrl('::1', 6443), 'https://[::1]:6443');
  assert.is(serverUrl('[::1]', 6443), 'https://[::1]:6443');
  assert.is(serverUrl('::', 6443), 'https://[::1]:6443');
  assert.is(serverUrl('0.0.0.0', 6443), 'https://127.0.0.1:6443');
  assert.is(serverUrl('example.com', 443), 'https://example.com:443');
  assert.is(normalizeServerUrl('https://::1:6443'), 'https://[::1]:6443');
  assert.is(normalizeServerUrl('https://fd00::5'), 'https://[fd00::5]');
  assert.is(normalizeServerUrl('127.0.0.1:6443'), 'https://127.0.0.1:6443');
  assert.is(normalizeServerUrl('https://[::1]:6443/base'), 'https://[::1]:6443/base');
});

test.run();
