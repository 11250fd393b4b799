import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from './testing.ts';
import { replicationControllerKind, replicationControllerTable } from './replicationcontroller.ts';

const S = replicationControllerKind.strategy;
const rc = (spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'r', namespace: 'default', ...(labels ? { labels } : {}) }, spec }) as unknown as KubeObject;
const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

test('defaults: selector and labels from the template, replicas 1, template PodSpec defaults', () => {
  const o = rc({ template: structuredClone(template) });
  S.defaults!(o);
  assert.equal((o as any).spec.selector, { app: 'a' });
  assert.equal(o.metadata.labels, { app: 'a' });
  assert.is((o as any).spec.replicas, 1);
  assert.is((o as any).spec.template.spec.restartPolicy, 'Always');
  const own = rc({ selector: { x: 'y' }, replicas: 0, template: structuredClone(template) }, { mine: 'yes' });
  S.defaults!(own);
  assert.equal((own as any).spec.selector, { x: 'y' });
  assert.equal(own.metadata.labels, { mine: 'yes' });
  assert.is((own as any).spec.replicas, 0);
});

test('validation: selector required and matching, template rules; update lists spec errors twice', () => {
  check('no template', S.validate(rc({ replicas: 1 })), [
    { type: 'FieldValueRequired', field: 'spec.selector' },
    { type: 'FieldValueRequired', field: 'spec.template' },
  ]);
  const o = rc({ replicas: 1, selector: { app: 'b' }, template: structuredClone(template) });
  S.defaults!(o);
  check('mismatch', S.validate(o), [{ type: 'FieldValueInvalid', field: 'spec.template.metadata.labels', msg: '`selector` does not match template `labels`' }]);
  assert.is(S.validateUpdate(o, o).length, 2);
});

test('generation: 1 on create, bumped on spec change only; status kept', () => {
  const o = rc({ replicas: 1, selector: { app: 'a' }, template: structuredClone(template) });
  S.prepareForCreate!(o);
  assert.is(o.metadata.generation, 1);
  assert.equal(o.status, { replicas: 0 });
  const same = structuredClone(o);
  same.status = { replicas: 4 };
  S.prepareForUpdate!(same, o);
  assert.is(same.metadata.generation, 1);
  assert.equal(same.status, { replicas: 0 });
  const scaled = structuredClone(o);
  (scaled as any).spec.replicas = 3;
  S.prepareForUpdate!(scaled, o);
  assert.is(scaled.metadata.generation, 2);
});

test('Table cells and the status.replicas field selector', () => {
  const o = rc({ replicas: 2, selector: { app: 'a' }, template });
  o.status = { replicas: 1, readyReplicas: 1 };
  const cells = replicationControllerTable.cells(o);
  assert.equal([...cells.slice(0, 4), ...cells.slice(5)], ['r', 2, 1, 1, 'c', 'nginx', 'app=a']);
  assert.is(replicationControllerKind.fieldSelectors!['status.replicas']!(o), '1');
});

test.run();
