/**
 * The official Kubernetes Python client against a real server: test/python/watch_client.py runs
 * CRUD, paging, a live watch, a resumed watch and a streaming list, checks each step itself and
 * prints its observations as JSON, which this suite checks again.
 *
 * The client lives in a virtualenv made by test/python/setup.sh (default .cache/pyvenv, or
 * $PYVENV). Under CI=true a missing venv FAILS this suite (CI must run setup.sh first); elsewhere
 * the suite runs setup.sh itself.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from './harness.ts';
import { ensurePythonVenv, runPythonScript } from './python-venv.ts';

/** The script's own watches end within ~20 s. */
const SCRIPT_TIMEOUT_MS = 90_000;

let srv: TestServer;

test.before(async () => {
  await ensurePythonVenv();
  srv = await startTestServer();
});

test.after(async () => {
  await srv?.close();
});

test('kubernetes Python client: CRUD, paging, live watch in order, resumed watch, streaming list with BOOKMARK', async () => {
  const r = await runPythonScript('watch_client.py', [srv.server.kubeconfigPath, 'pyclient'], SCRIPT_TIMEOUT_MS);
  assert.is(r.code, 0, `watch_client.py exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  let out: any;
  try {
    out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    assert.unreachable(`watch_client.py printed no JSON result:\n${r.stdout}\n${r.stderr}`);
  }
  assert.is(out.ok, true, JSON.stringify(out));
  assert.equal(out.watch.events.map((e: string) => e.split('@')[0]), ['ADDED py-a', 'MODIFIED py-a', 'DELETED py-a'], `live watch: ${JSON.stringify(out.watch)}`);
  assert.equal(out.paging, { pages: 3, items: 5 }, 'paging through the client');
  assert.equal(out.resume.events.map((e: string) => e.split('@')[0]), ['MODIFIED py-b', 'ADDED py-c', 'DELETED py-b'], `resumed watch: ${JSON.stringify(out.resume)}`);
  assert.ok(out.resume.events.every((e: string) => Number(e.split('@')[1]) > Number(out.resume.from)), `resumed events all after ${out.resume.from}`);
  assert.ok(out.streamingList.events.some((e: string) => e.startsWith('BOOKMARK')), `streaming list bookmark: ${JSON.stringify(out.streamingList)}`);

  // The server agrees with what the client saw: py-c deleted last, nothing left behind.
  const left = await srv.client.request('GET', '/api/v1/namespaces/pyclient/configmaps');
  assert.is(left.status, 200);
  // kube-root-ca.crt is the root-CA publisher's, in every namespace.
  assert.equal(left.json.items.filter((o: { metadata: { name: string } }) => o.metadata.name !== 'kube-root-ca.crt'), [], 'the script cleaned up');
});

test.run();
