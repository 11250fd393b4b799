import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { ingressKind, ingressStatusStrategy, ingressTable } from './ingress.ts';

const S = ingressKind.strategy;
const ing = (spec?: Record<string, unknown>, status?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'i', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z' },
  ...(spec === undefined ? {} : { spec }),
  ...(status === undefined ? {} : { status }),
});
const backend = { service: { name: 's', port: { number: 80 } } };

test('prepare: status reset on create, kept on update; /status keeps the spec', () => {
  const o = ing({ defaultBackend: backend }, { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } });
  S.prepareForCreate!(o);
  assert.equal(o.status, { loadBalancer: {} });
  const n = ing({ defaultBackend: backend }, { loadBalancer: { ingress: [{ ip: '2.2.2.2' }] } });
  S.prepareForUpdate!(n, ing({}, { loadBalancer: {} }));
  assert.equal(n.status, { loadBalancer: {} });
  const s = ing({ rules: [] }, { loadBalancer: { ingress: [{ ip: '2.2.2.2' }] } });
  ingressStatusStrategy.prepareForUpdate(s, ing({ defaultBackend: backend }));
  assert.equal(s.spec, { defaultBackend: backend });
});

test('validate: rules or a default backend; old invalid wildcard rules and secret names stay allowed on update', () => {
  check('empty', S.validate(ing({})), [{ type: 'FieldValueInvalid', field: 'spec', msg: '[]networking.IngressRule(nil)' }]);
  check('ok', S.validate(ing({ defaultBackend: backend })), []);
  const wild = ing({ rules: [{ host: '*.a.com', http: { paths: [] } }], tls: [{ secretName: 'Bad_Name' }] });
  check('strict on create', S.validate(wild), [
    { type: 'FieldValueRequired', field: 'spec.rules[0].http.paths' },
    { type: 'FieldValueInvalid', field: 'spec.tls[0].secretName' },
  ]);
  check('lenient on update from the same', S.validateUpdate(wild, wild), []);
});

test('table: class, hosts (3 then "+ N more..."), sorted addresses, ports', () => {
  const rules = ['a', 'b', 'c', 'd', 'e'].map((h) => ({ host: `${h}.com` }));
  const o = ing({ ingressClassName: 'x', rules, tls: [{}] }, { loadBalancer: { ingress: [{ ip: '9.9.9.9' }, { hostname: 'h.com' }, { ip: '1.1.1.1' }, { ip: '1.1.1.1' }] } });
  assert.equal(ingressTable.cells(o), ['i', 'x', 'a.com,b.com,c.com + 2 more...', '1.1.1.1,9.9.9.9,h.com', '80, 443', '2024-01-01T00:00:00Z']);
  assert.equal(ingressTable.cells(ing({ defaultBackend: backend })).slice(1, 5), ['<none>', '*', '', '80']);
});

test.run();
