/**
 * HTTP/2 as kube-apiserver 1.24 serves it (secure_serving.go): the SETTINGS a client receives
 * (256 KiB stream window and frames, 250 concurrent streams, Go's 1 MiB header list), a connection
 * window of 256 KiB × 250, and one connection carrying many creates at once. Runs against this
 * server or, with TEST_KUBECONFIG, the reference.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http2 from 'node:http2';
import { startTarget, readKubeconfig, type Target } from '../target.ts';

let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('h2');
});

test.after(async () => {
  await t?.close();
});

function connect(): Promise<http2.ClientHttp2Session> {
  const k = readKubeconfig(t.kubeconfig);
  const session = http2.connect(k.server, { ca: k.ca, cert: k.cert, key: k.key });
  return new Promise((resolve, reject) => {
    session.once('error', reject);
    session.once('remoteSettings', () => resolve(session));
  });
}

/** One request on `session`: status and body text. */
function request(session: http2.ClientHttp2Session, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const k = readKubeconfig(t.kubeconfig);
  return new Promise((resolve, reject) => {
    const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path, 'content-type': 'application/json' };
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    const req = session.request(headers);
    let status = 0;
    const chunks: Buffer[] = [];
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

test('SETTINGS and the connection window are kube-apiserver\'s', async () => {
  const session = await connect();
  try {
    const s = session.remoteSettings;
    assert.is(s.initialWindowSize, 256 * 1024, 'SETTINGS_INITIAL_WINDOW_SIZE');
    assert.is(s.maxFrameSize, 256 * 1024, 'SETTINGS_MAX_FRAME_SIZE');
    assert.is(s.maxConcurrentStreams, 250, 'SETTINGS_MAX_CONCURRENT_STREAMS');
    assert.is(s.maxHeaderListSize, (1 << 20) + 320, 'SETTINGS_MAX_HEADER_LIST_SIZE');
    // The connection's window grows with a WINDOW_UPDATE after the SETTINGS (RFC 9113 6.9.2).
    const deadline = Date.now() + 5000;
    while ((session.state.remoteWindowSize ?? 0) < 256 * 1024 * 250 && Date.now() < deadline) await request(session, 'GET', '/version');
    assert.is(session.state.remoteWindowSize, 256 * 1024 * 250, 'connection window: 256 KiB × 250 streams');
  } finally {
    session.close();
  }
});

test('one connection carries 100 creates at once, each with a 4 KiB body', async () => {
  const session = await connect();
  try {
    const names = Array.from({ length: 100 }, (_, i) => `c-${i}`);
    const answers = await Promise.all(
      names.map((name) => request(session, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: 'x'.repeat(4096) } })),
    );
    for (const [i, a] of answers.entries()) assert.is(a.status, 201, `${names[i]}: ${a.text.slice(0, 200)}`);
    const list = JSON.parse((await request(session, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).text);
    assert.equal((list.items as any[]).map((o) => o.metadata.name).filter((n: string) => n.startsWith('c-')).sort(), [...names].sort());
  } finally {
    session.close();
  }
});

test.run();
