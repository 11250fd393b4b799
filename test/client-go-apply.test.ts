/**
 * client-go v0.24.17's typed server-side apply against this server (or, with TEST_KUBECONFIG, the
 * reference): `ConfigMaps().Apply` with ApplyConfigurations (create, 409 conflict, Force),
 * `ExtractConfigMap` reading a manager's fields back from managedFields, a protobuf client, and
 * `Services().Apply` / `ApplyStatus`. A tiny Go program (test/go/apply-client, modules from the Go
 * module proxy, cached under .cache/go as test/client-go-openapi.test.ts does) prints what it got.
 * Under CI a missing Go toolchain or module fails the test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { goEnv, goProgram } from './go-env.ts';
import { startTarget, type Target } from './target.ts';

const PROGRAM = goProgram('apply-client');

let t: Target;

test.before(async () => {
  t = await startTarget();
});

test.after(async () => {
  await t?.close();
});

test('client-go typed Apply / ApplyStatus / ExtractConfigMap, JSON and protobuf clients', async () => {
  const ns = await t.createNamespace('goapply');
  // Asynchronously: the server may run in this process and must keep answering.
  const opts = {
    cwd: PROGRAM,
    env: goEnv(),
    timeout: 9 * 60 * 1000,
    maxBuffer: 16 * 1024 * 1024,
  };
  let out: string;
  try {
    out = (await promisify(execFile)('go', ['run', '.', t.kubeconfig, ns], opts)).stdout;
  } catch (e) {
    assert.unreachable(`go run failed (Go and the module proxy are required): ${String((e as { stderr?: string }).stderr || (e as Error).message)}`);
    return;
  }
  assert.equal(JSON.parse(out), {
    created: { a: '1', b: '2' },
    createdManagers: ['go-app/Apply'],
    conflictIs409: true,
    conflictMessage: 'Apply failed with 1 conflict: conflict with "go-app": .data.a',
    forced: { a: 'x', b: '2' },
    extracted: { b: '2' },
    protobufData: { p: 'b' },
    servicePorts: ['http:80/TCP', 'dns:53/UDP'],
    statusIngress: '192.0.2.10',
    statusManagers: ['go-app/Apply', 'go-lb/Apply/status'],
  });
});

test.run();
