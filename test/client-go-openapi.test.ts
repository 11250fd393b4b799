/**
 * client-go's OpenAPI consumers against this server, as older kubectl and controllers use them:
 * `DiscoveryClient.OpenAPISchema()` (the gnostic protobuf form of /openapi/v2) and the OpenAPI v3
 * client (`OpenAPIV3().Paths()` → per group-version schema by its `?hash=` URL). A tiny Go program
 * (test/go/openapi-client/main.go, k8s.io/client-go v0.24.17 from the Go module proxy) prints what
 * it got; this test asserts it. Under CI a missing Go toolchain or module fails the test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { goEnv, goProgram } from './go-env.ts';
import { startTestServer, type TestServer } from './harness.ts';

const PROGRAM = goProgram('openapi-client');

let srv: TestServer;

test.before(async () => {
  srv = await startTestServer();
});

test.after(async () => {
  await srv?.close();
});

test('client-go OpenAPISchema() and the OpenAPI v3 client read what this server serves', async () => {
  // Asynchronously: the server runs in this process and must keep answering.
  const opts = {
    cwd: PROGRAM,
    env: goEnv(),
    timeout: 9 * 60 * 1000,
    maxBuffer: 16 * 1024 * 1024,
  };
  let out: string;
  try {
    out = (await promisify(execFile)('go', ['run', '.', path.join(srv.dataDir, 'kubeconfig')], opts)).stdout;
  } catch (e) {
    assert.unreachable(`go run failed (Go and the module proxy are required): ${String((e as { stderr?: string }).stderr || (e as Error).message)}`);
    return;
  }
  const r = JSON.parse(out) as { v2Definitions: number; v2HasConfigMap: boolean; v2ConfigMapPaths: string[]; v3Paths: string[]; v3ConfigMapSchema: boolean; v3DataType: string };
  assert.ok(r.v2Definitions > 50, `v2 definitions: ${r.v2Definitions}`);
  assert.ok(r.v2HasConfigMap, 'v2 has io.k8s.api.core.v1.ConfigMap');
  assert.ok(r.v2ConfigMapPaths.includes('/api/v1/namespaces/{namespace}/configmaps/{name}'), r.v2ConfigMapPaths.join(' '));
  assert.ok(r.v3Paths.includes('api/v1'), r.v3Paths.join(' '));
  assert.ok(r.v3ConfigMapSchema, 'v3 api/v1 document has components.schemas ConfigMap');
  assert.is(r.v3DataType, 'object');
});

test.run();
