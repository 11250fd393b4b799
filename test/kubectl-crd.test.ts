/**
 * kubectl (the one on PATH, 1.32) on a CustomResourceDefinition and its custom resources, as a
 * user drives them (issue 26): `apply -f crd.yaml`, `wait --for condition=established`, `get
 * <plural>` / `get <shortname>` / `get <category>` with the printer columns (a JSONPath filter
 * column included), `apply --server-side` of a custom resource and a second manager's conflict
 * (then `--force-conflicts`), `patch --subresource=status`, `scale --replicas` (and `get
 * --subresource=scale`), and `delete crd`,
 * after which the kind is gone. The outputs asserted are those kubectl prints against the reference
 * kube-apiserver 1.24.17 (TEST_KUBECONFIG). kubectl missing: skipped locally, FAILS under CI=true.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { startTarget, type Target } from './target.ts';
import { eventually } from './harness.ts';
import { namespacedCRD } from './crd-target.ts';
import { kubectlFor, kubectlSuite, tableRows, type Kubectl } from './kubectl-run.ts';

let t: Target;
let k: Kubectl;
let group: string;
let ns: string;
let short: string;
let category: string;
const dir = mkdtempSync(join(tmpdir(), 'kubectl-crd-'));

function file(name: string, obj: Record<string, unknown>): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, YAML.stringify(obj));
  return path;
}

const crd = () =>
  namespacedCRD(group, { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: [short], categories: [category] }, {
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
    additionalPrinterColumns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Tags', type: 'string', jsonPath: '.spec.tags', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              replicas: { type: 'integer', minimum: 0 },
              tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
              color: { type: 'string' },
            },
          },
          status: {
            type: 'object',
            properties: {
              replicas: { type: 'integer' },
              conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } },
            },
          },
        },
      },
    },
  });

const widget = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, namespace: ns }, spec });

/** The kind fully qualified (a reference cluster may serve other `widgets`). */
const W = (): string => `widgets.${group}`;

/** A table's rows without the Age column (the last one). */
const rowsNoAge = (out: string): string[][] => tableRows(out).map((r) => r.slice(0, -1));

await kubectlSuite(() => {
  test.before(async () => {
    t = await startTarget({ namespaceDefaults: false });
    k = kubectlFor(t.kubeconfig);
    group = `${t.ns('kc')}.example.test`;
    short = t.ns('wd');
    category = t.ns('cat');
    ns = await t.createNamespace('kubectl-crd');
  });

  test.after(async () => {
    if (t?.reference) await t.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
    await t?.close();
  });

  test('apply -f crd.yaml, wait --for condition=established', async () => {
    const out = await k.ok('apply', '-f', file('crd', crd()));
    assert.is(out, `customresourcedefinition.apiextensions.k8s.io/widgets.${group} created\n`);
    const waited = await k.ok('wait', '--for', 'condition=established', '--timeout=30s', `crd/widgets.${group}`);
    assert.is(waited, `customresourcedefinition.apiextensions.k8s.io/widgets.${group} condition met\n`);
  });

  test('apply --server-side of a custom resource; a second manager conflicts, then forces', async () => {
    const applied = await k.ok('apply', '--server-side', '-f', file('w1', widget('w1', { replicas: 2, tags: ['a'], color: 'red' })));
    assert.is(applied, `widget.${group}/w1 serverside-applied\n`);
    const clash = await k.run('apply', '--server-side', '--field-manager=other', '-f', file('w1-other', widget('w1', { replicas: 3, tags: ['b'] })));
    assert.is(clash.code, 1, clash.stderr);
    assert.ok(clash.stderr.startsWith(`error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas\n`), clash.stderr);
    const forced = await k.ok('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', file('w1-other', widget('w1', { replicas: 3, tags: ['b'] })));
    assert.is(forced, `widget.${group}/w1 serverside-applied\n`);
    // tags is a set: both managers' elements stay; replicas moved to "other".
    const o = JSON.parse(await k.ok('get', W(), 'w1', '-n', ns, '-o', 'json', '--show-managed-fields'));
    assert.equal(o.spec, { color: 'red', replicas: 3, tags: ['a', 'b'] });
    assert.equal(
      o.metadata.managedFields.map((e: Record<string, unknown>) => [e.manager, e.operation, e.fieldsV1]),
      [
        ['kubectl', 'Apply', { 'f:spec': { 'f:color': {}, 'f:tags': { 'v:"a"': {} } } }],
        ['other', 'Apply', { 'f:spec': { 'f:replicas': {}, 'f:tags': { 'v:"b"': {} } } }],
      ],
    );
  });

  test('patch --subresource=status; get <plural>, <shortname>, <category> with printer columns', async () => {
    const patched = await k.ok('patch', W(), 'w1', '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { replicas: 1, conditions: [{ type: 'Init', status: 'True' }, { type: 'Ready', status: 'False' }] } }));
    assert.is(patched, `widget.${group}/w1 patched\n`);
    await k.ok('apply', '--server-side', '-f', file('w2', widget('w2', { replicas: 1 })));
    const plural = await k.ok('get', W(), '-n', ns);
    assert.equal(rowsNoAge(plural), [['NAME', 'REPLICAS', 'READY'], ['w1', '3', 'False'], ['w2', '1']]);
    assert.is(tableRows(plural)[0][3], 'AGE');
    assert.equal(rowsNoAge(await k.ok('get', short, '-n', ns)), rowsNoAge(plural));
    const wide = await k.ok('get', short, '-n', ns, '-o', 'wide');
    // Columns in the CRD's order (Tags, priority 1, before Age); null cells print empty.
    assert.equal(rowsNoAge(wide), [['NAME', 'REPLICAS', 'READY', 'TAGS'], ['w1', '3', 'False', '["a","b"]'], ['w2', '1']]);
    const byCategory = await k.ok('get', category, '-n', ns);
    // One kind in the category: kubectl prints its table as for the plural.
    assert.equal(rowsNoAge(byCategory), rowsNoAge(plural));
  });

  test('scale --replicas writes spec.replicas through the scale subresource', async () => {
    assert.is(await k.ok('scale', W(), 'w1', '-n', ns, '--replicas=5'), `widget.${group}/w1 scaled\n`);
    assert.is(await k.ok('get', W(), 'w1', '-n', ns, '-o', 'jsonpath={.spec.replicas} {.status.replicas}'), '5 1');
    assert.equal(rowsNoAge(await k.ok('get', W(), 'w1', '-n', ns, '--subresource=scale')), [['NAME', 'DESIRED', 'AVAILABLE'], ['w1', '5', '1']]);
    const scale = JSON.parse(await k.ok('get', W(), 'w1', '-n', ns, '--subresource=scale', '-o', 'json'));
    assert.equal([scale.apiVersion, scale.kind, scale.spec, scale.status], ['autoscaling/v1', 'Scale', { replicas: 5 }, { replicas: 1 }]);
    const stale = await k.run('scale', W(), 'w1', '-n', ns, '--replicas=6', '--current-replicas=4');
    assert.is(stale.code, 1, stale.stderr);
    assert.is(stale.stderr, `error: Expected replicas to be 4, was 5\n`);
    const negative = await k.run('scale', W(), 'w1', '-n', ns, '--replicas=-1');
    assert.is(negative.code, 1, negative.stderr);
  });

  test('delete crd: the custom resources and the kind go', async () => {
    assert.is(await k.ok('delete', 'crd', `widgets.${group}`), `customresourcedefinition.apiextensions.k8s.io "widgets.${group}" deleted\n`);
    await eventually('the kind gone', async () => (await t.client.request('GET', `/apis/${group}/v1`)).status === 404);
    const gone = await k.run('get', W(), '-n', ns);
    assert.is(gone.code, 1, gone.stdout);
    assert.is(gone.stderr, `error: the server doesn't have a resource type "widgets"\n`);
  });
});
