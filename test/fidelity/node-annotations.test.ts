/**
 * ValidateNodeSpecificAnnotations as kube-apiserver 1.24 runs it on Node create and update: the
 * `scheduler.alpha.kubernetes.io/taints` annotation (JSON []core.Taint, each taint validated as
 * spec.taints are, under the annotation's path) and `scheduler.alpha.kubernetes.io/preferAvoidPods`
 * (JSON v1.AvoidPods, every entry naming a controller); values that do not unmarshal are refused
 * with encoding/json's error; an update reports the annotation errors twice (ValidateNode and
 * ValidateNodeUpdate both run them). Other annotations (node.alpha.kubernetes.io/ttl) are free.
 *
 *   node --import tsx test/run.ts test/fidelity/node-annotations.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/node-annotations.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { type Cause, clusterSuite, invalidStatus, same } from './storage-helpers.ts';

const C = '/api/v1/nodes';
const S = clusterSuite(test, C, ['ok', 'u', 'ttl']);
const TAINTS = 'scheduler.alpha.kubernetes.io/taints';
const AVOID = 'scheduler.alpha.kubernetes.io/preferAvoidPods';
const node = (name: string, annotations: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, annotations } });
const NAME_PART = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const EFFECTS = 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"';
const tp = (i: number, f = '') => `metadata.annotations.${TAINTS}[${i}]${f ? `.${f}` : ''}`;

test('create: the annotations must unmarshal (encoding/json errors) and hold valid taints and controllers; nothing stored', async () => {
  const cases: [Record<string, string>, Cause[]][] = [
    [{ [TAINTS]: 'x' }, [['FieldValueInvalid', 'metadata.annotations', `Invalid value: "${TAINTS}": invalid character 'x' looking for beginning of value`]]],
    [{ [TAINTS]: '{"key":"k"}' }, [['FieldValueInvalid', 'metadata.annotations', `Invalid value: "${TAINTS}": json: cannot unmarshal object into Go value of type []core.Taint`]]],
    [
      { [TAINTS]: '[{"key":"a b","effect":"Bogus"},{"key":"k","effect":"NoSchedule"},{"Key":"k","effect":"NoSchedule"},{"value":"v v"}]' },
      [
        ['FieldValueInvalid', tp(0, 'key'), `Invalid value: "a b": ${NAME_PART}`],
        ['FieldValueNotSupported', tp(0, 'effect'), `Unsupported value: "Bogus": ${EFFECTS}`],
        ['FieldValueDuplicate', tp(2), 'Duplicate value: core.Taint{Key:"k", Value:"", Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect pair'],
        ['FieldValueInvalid', tp(3, 'key'), 'Invalid value: "": name part must be non-empty'],
        ['FieldValueInvalid', tp(3, 'key'), `Invalid value: "": ${NAME_PART}`],
        ['FieldValueInvalid', tp(3, 'value'), `Invalid value: "v v": ${LABEL_VALUE}`],
        ['FieldValueRequired', tp(3, 'effect'), 'Required value'],
      ],
    ],
    [{ [TAINTS]: '[{"key":5}]' }, [['FieldValueInvalid', 'metadata.annotations', `Invalid value: "${TAINTS}": json: cannot unmarshal number into Go struct field Taint.Key of type string`]]],
    [{ [TAINTS]: '[{"key":"k","effect":"NoSchedule","timeAdded":"yesterday"}]' }, [['FieldValueInvalid', 'metadata.annotations', `Invalid value: "${TAINTS}": parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`]]],
    [{ [AVOID]: 'nope' }, [['FieldValueInvalid', 'metadata.annotations.AvoidPods', `Invalid value: "${AVOID}": invalid character 'o' in literal null (expecting 'u')`]]],
    [{ [AVOID]: '[]' }, [['FieldValueInvalid', 'metadata.annotations.AvoidPods', `Invalid value: "${AVOID}": json: cannot unmarshal array into Go value of type v1.AvoidPods`]]],
    [{ [AVOID]: '{"preferAvoidPods":[{"evictionTime":"bad"}]}' }, [['FieldValueInvalid', 'metadata.annotations.AvoidPods', `Invalid value: "${AVOID}": parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"`]]],
    [
      { [AVOID]: '{"preferAvoidPods":[{"podSignature":{}},{"podSignature":{"podController":{"apiVersion":"v1","kind":"ReplicationController","name":"x","uid":"u","controller":false}}},{"podSignature":{"podController":{"apiVersion":"v1","kind":"ReplicationController","name":"x","uid":"u","controller":true}},"reason":"r"}]}' },
      [
        ['FieldValueRequired', `metadata.annotations.${AVOID}[0].PodSignature`, 'Required value'],
        ['FieldValueInvalid', `metadata.annotations.${AVOID}[1].PodSignature.PodController.Controller`, 'Invalid value: false: must point to a controller'],
      ],
    ],
  ];
  for (const [annotations, causes] of cases) {
    const name = S.n('bad');
    const r = await S.post(node(name, annotations));
    same(r.json, invalidStatus('Node', name, causes, ''), JSON.stringify(annotations), r);
  }
  const gone = await S.t.client.request('GET', `${C}/${S.n('bad')}`);
  assert.is(gone.status, 404, show(gone));
});

test('create: valid or empty annotations, and annotations kube does not check, are kept', async () => {
  const ok = { [TAINTS]: '[{"key":"k","value":"v","effect":"NoSchedule","timeAdded":"2024-01-01T00:00:00Z"}]', [AVOID]: '{"preferAvoidPods":[{"podSignature":{"podController":{"apiVersion":"v1","kind":"ReplicationController","name":"x","uid":"u","controller":true}}}]}' };
  const r = await S.post(node(S.n('ok'), ok));
  assert.is(r.status, 201, show(r));
  assert.equal(r.json.metadata.annotations, ok);
  const free = { 'node.alpha.kubernetes.io/ttl': 'abc', [TAINTS]: '', [AVOID]: '' };
  const t = await S.post(node(S.n('ttl'), free));
  assert.is(t.status, 201, show(t));
  assert.equal(t.json.metadata.annotations, free);
});

test('update: the same checks, each error reported by ValidateNode and again by ValidateNodeUpdate', async () => {
  const name = S.n('u');
  const c = await S.post(node(name, {}));
  assert.is(c.status, 201, show(c));
  const patch = (annotations: Record<string, string>) => S.t.client.request('PATCH', `${C}/${name}`, { body: { metadata: { annotations } }, contentType: 'application/merge-patch+json' });
  const bad = await patch({ [TAINTS]: '[{"key":"k","effect":"X"}]' });
  const cause: Cause = ['FieldValueNotSupported', tp(0, 'effect'), `Unsupported value: "X": ${EFFECTS}`];
  same(bad.json, invalidStatus('Node', name, [cause, cause], ''), 'taints', bad);
  const avoid = await patch({ [AVOID]: '{"preferAvoidPods":5}' });
  const avoidCause: Cause = ['FieldValueInvalid', 'metadata.annotations.AvoidPods', `Invalid value: "${AVOID}": json: cannot unmarshal number into Go struct field AvoidPods.preferAvoidPods of type []v1.PreferAvoidPodsEntry`];
  same(avoid.json, invalidStatus('Node', name, [avoidCause, avoidCause], ''), 'preferAvoidPods', avoid);
  const good = await patch({ [TAINTS]: '[{"key":"k","effect":"NoExecute"}]' });
  assert.is(good.status, 200, show(good));
});

test.run();
