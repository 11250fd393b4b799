/** proto/k8s.proto is exactly what cmd/gen-proto.ts builds from the upstream generated.proto files. */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generate } from './gen-proto.ts';

test('proto/k8s.proto is up to date with its generator', () => {
  const current = readFileSync(new URL('../proto/k8s.proto', import.meta.url), 'utf8');
  assert.ok(current === generate(), 'proto/k8s.proto differs from `node --import tsx cmd/gen-proto.ts` output: regenerate it');
});

test('the served roots are in it (Pod, PodList, ServiceAccount, policy/v1 Eviction)', () => {
  const text = generate();
  for (const m of ['message Pod {', 'message PodList {', 'message ServiceAccount {', 'message ServiceAccountList {', 'message Eviction {']) assert.ok(text.includes(`\n${m}\n`), m);
  assert.ok(text.includes('\npackage k8s.io.api.policy.v1;\n'));
});

test.run();
