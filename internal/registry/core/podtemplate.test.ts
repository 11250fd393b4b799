import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from './testing.ts';
import { podTemplateKind, podTemplateTable } from './podtemplate.ts';

const S = podTemplateKind.strategy;
const pt = (template: Record<string, unknown>, generation?: number): KubeObject =>
  ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 't', namespace: 'default', ...(generation ? { generation } : {}) }, template }) as unknown as KubeObject;
const valid = () => pt({ metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

test('defaults: the PodSpec tree only (no enableServiceLinks, no requests from limits)', () => {
  const o = valid();
  S.defaults!(o);
  const spec = (o as any).template.spec;
  assert.is(spec.restartPolicy, 'Always');
  assert.is(spec.dnsPolicy, 'ClusterFirst');
  assert.is(spec.enableServiceLinks, undefined);
  assert.is(spec.containers[0].imagePullPolicy, 'Always');
});

test('validation under template; ephemeral containers forbidden', () => {
  const o = pt({ spec: { containers: [], ephemeralContainers: [{ name: 'e', image: 'x' }] } });
  S.defaults!(o);
  check('invalid', S.validate(o), [
    { type: 'FieldValueRequired', field: 'template.spec.containers' },
    { type: 'FieldValueForbidden', field: 'template.spec.ephemeralContainers', msg: 'ephemeral containers not allowed in pod template' },
  ]);
  const ok = valid();
  S.defaults!(ok);
  check('valid', S.validate(ok), []);
});

test('generation: 1 on create, bumped only when the template changes', () => {
  const o = valid();
  S.prepareForCreate!(o);
  assert.is(o.metadata.generation, 1);
  const same = valid();
  S.prepareForUpdate!(same, o);
  assert.is(same.metadata.generation, 1);
  const changed = pt({ spec: { containers: [{ name: 'c', image: 'nginx:2' }] } });
  S.prepareForUpdate!(changed, o);
  assert.is(changed.metadata.generation, 2);
});

test('Table cells as printPodTemplate', () => {
  const o = pt({ metadata: { labels: { b: '2', a: '1' } }, spec: { containers: [{ name: 'c', image: 'i1' }, { name: 'd', image: 'i2' }] } });
  assert.equal(podTemplateTable.cells(o), ['t', 'c,d', 'i1,i2', 'a=1,b=2']);
  assert.equal(podTemplateTable.cells(pt({})), ['t', '', '', '<none>']);
});

test.run();
