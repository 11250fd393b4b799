/**
 * cmd/gen-schemas.ts: where a definition's generated schema goes (moved out of
 * internal/schema/registry.test.ts: internal/ never imports cmd/).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileOf } from './gen-schemas.ts';

test('generator: output file per Go package', () => {
  assert.is(fileOf('io.k8s.api.core.v1.Pod'), 'core_v1');
  assert.is(fileOf('io.k8s.api.storage.v1.StorageClass'), 'storage_v1');
  assert.is(fileOf('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'), 'meta_v1');
  assert.is(fileOf('io.k8s.apimachinery.pkg.util.intstr.IntOrString'), 'util_intstr');
});

test.run();
