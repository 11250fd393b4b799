/**
 * The real kubectl against an in-process server, configured only from the kubeconfig the server
 * writes into its data dir. kubectl missing: the suite is skipped locally, but FAILS under CI=true.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { startTestServer, type TestServer } from './harness.ts';
import { KUBECTL, kubectlFor, kubectlSuite, runCommand, tableRows, type Kubectl, type Run } from './kubectl-run.ts';

let server: TestServer;
let kubeconfig: string;
let k: Kubectl;

const kubectl = (...args: string[]): Promise<Run> => k.run(...args);
const ok = (...args: string[]): Promise<string> => k.ok(...args);
const table = tableRows;

await kubectlSuite(defineTests);

function defineTests(): void {
  test.before(async () => {
    server = await startTestServer();
    kubeconfig = join(server.dataDir, 'kubeconfig');
    k = kubectlFor(kubeconfig);
  });

  test.after(async () => {
    await server?.close();
  });

  test('kubeconfig is the one the server wrote', () => {
    assert.is(kubeconfig, server.server.kubeconfigPath);
  });

  test('get namespaces lists the four bootstrap namespaces, Active', async () => {
    const rows = table(await ok('get', 'namespaces'));
    assert.equal(rows[0], ['NAME', 'STATUS', 'AGE']);
    const byName = new Map(rows.slice(1).map((r) => [r[0], r]));
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      assert.ok(byName.has(n), `namespace ${n} listed`);
      assert.is(byName.get(n)![1], 'Active');
      assert.match(byName.get(n)![2], /^\d+[smhd]/);
    }
  });

  test('get ns default -o json', async () => {
    const ns = JSON.parse(await ok('get', 'ns', 'default', '-o', 'json'));
    assert.is(ns.kind, 'Namespace');
    assert.is(ns.apiVersion, 'v1');
    assert.is(ns.metadata.name, 'default');
    assert.ok(ns.metadata.uid);
    assert.ok(ns.metadata.resourceVersion);
    assert.ok(ns.metadata.creationTimestamp);
    assert.is(ns.metadata.labels['kubernetes.io/metadata.name'], 'default');
    assert.equal(ns.spec.finalizers, ['kubernetes']);
    assert.is(ns.status.phase, 'Active');
  });

  test('create -f <yaml> (kubectl validates against our OpenAPI), then get cm -o yaml', async () => {
    const file = join(server.dataDir, 'cm-x.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    app: demo\ndata:\n  key: value\n  multi: |\n    line1\n    line2\n');
    const out = await ok('create', '-f', file);
    assert.match(out, /configmap\/x created/);

    const list = YAML.parse(await ok('get', 'cm', '-o', 'yaml'));
    assert.is(list.kind, 'List');
    const x = list.items.find((i: any) => i.metadata.name === 'x');
    assert.ok(x, 'x listed');
    assert.is(x.kind, 'ConfigMap');
    assert.is(x.apiVersion, 'v1');
    assert.is(x.metadata.namespace, 'default');
    assert.equal(x.metadata.labels, { app: 'demo' });
    assert.equal(x.data, { key: 'value', multi: 'line1\nline2\n' });

    const one = YAML.parse(await ok('get', 'cm', 'x', '-o', 'yaml'));
    assert.is(one.kind, 'ConfigMap');
    assert.is(one.metadata.uid, x.metadata.uid);

    // creating it again: AlreadyExists, exit 1
    const again = await kubectl('create', '-f', file);
    assert.is(again.code, 1);
    assert.match(again.stderr, /AlreadyExists/);
  });

  test('label, get -l, annotate, field selector, -A', async () => {
    assert.match(await ok('label', 'cm', 'x', 'a=b'), /configmap\/x labeled/);
    const byLabel = table(await ok('get', 'cm', '-l', 'a=b'));
    assert.equal(byLabel[0], ['NAME', 'DATA', 'AGE']);
    assert.equal(byLabel.slice(1).map((r) => r.slice(0, 2)), [['x', '2']]);
    const none = await kubectl('get', 'cm', '-l', 'a=zzz');
    assert.is(none.code, 0);
    assert.is(none.stdout.trim(), '');
    assert.match(none.stderr, /No resources found in default namespace/);

    // relabelling without --overwrite is refused by kubectl; with it, it works
    const clash = await kubectl('label', 'cm', 'x', 'a=c');
    assert.is(clash.code, 1);
    await ok('label', 'cm', 'x', 'a=c', '--overwrite');
    assert.equal(table(await ok('get', 'cm', '-l', 'a=c')).slice(1).map((r) => r[0]), ['x']);
    await ok('label', 'cm', 'x', 'a=b', '--overwrite');

    assert.match(await ok('annotate', 'cm', 'x', 'note=hello world'), /configmap\/x annotated/);
    assert.is(await ok('get', 'cm', 'x', '-o', 'jsonpath={.metadata.annotations.note}'), 'hello world');

    const byField = table(await ok('get', 'cm', '--field-selector', 'metadata.name=x'));
    assert.equal(byField.slice(1).map((r) => r[0]), ['x']);
    const notX = table(await ok('get', 'cm', '--field-selector', 'metadata.name!=x'));
    assert.not.ok(notX.slice(1).some((r) => r[0] === 'x'));

    // another namespace's object shows up under -A
    const other = join(server.dataDir, 'cm-other.yaml');
    writeFileSync(other, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: kube-public\ndata:\n  k: v\n');
    await ok('create', '-f', other);
    const all = table(await ok('get', 'cm', '-A'));
    assert.equal(all[0], ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
    const pairs = all.slice(1).map((r) => `${r[0]}/${r[1]}`);
    assert.ok(pairs.includes('default/x'), pairs.join(','));
    assert.ok(pairs.includes('kube-public/other'), pairs.join(','));
    const names = (await ok('get', 'cm', '-A', '-o', 'name')).trim().split('\n');
    assert.ok(names.includes('configmap/x') && names.includes('configmap/other'));
    const showLabels = table(await ok('get', 'cm', 'x', '--show-labels'));
    assert.equal(showLabels[0], ['NAME', 'DATA', 'AGE', 'LABELS']);
    assert.is(showLabels[1][3], 'a=b,app=demo');
  });

  test('patch (strategic, merge, json) and apply / replace', async () => {
    await ok('patch', 'cm', 'x', '-p', '{"data":{"p":"q"}}');
    await ok('patch', 'cm', 'x', '--type=merge', '-p', '{"data":{"m":"n","multi":null}}');
    await ok('patch', 'cm', 'x', '--type=json', '-p', '[{"op":"add","path":"/data/j","value":"k"}]');
    const data = JSON.parse(await ok('get', 'cm', 'x', '-o', 'jsonpath={.data}'));
    assert.equal(data, { key: 'value', p: 'q', m: 'n', j: 'k' });

    const file = join(server.dataDir, 'cm-applied.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  v: "1"\n');
    assert.match(await ok('apply', '-f', file), /configmap\/applied created/);
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  v: "2"\n  w: "3"\n');
    assert.match(await ok('apply', '-f', file), /configmap\/applied configured/);
    const applied = JSON.parse(await ok('get', 'cm', 'applied', '-o', 'json'));
    assert.equal(applied.data, { v: '2', w: '3' });
    assert.ok(applied.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.match(await ok('apply', '-f', file), /configmap\/applied unchanged/);

    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  only: "this"\n');
    assert.match(await ok('replace', '-f', file), /configmap\/applied replaced/);
    assert.equal(JSON.parse(await ok('get', 'cm', 'applied', '-o', 'jsonpath={.data}')), { only: 'this' });
    await ok('delete', 'cm', 'applied', '--wait=false');
  });

  test('edit with kubectl defaults (validation against our OpenAPI)', async () => {
    await ok('create', 'cm', 'edited', '--from-literal=k=before');
    // The "editor" rewrites the value in the file kubectl hands it.
    const editor = join(server.dataDir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/k: before/k: after/" "$1"\n', { mode: 0o755 });
    const r = await runCommand(KUBECTL, ['--kubeconfig', kubeconfig, 'edit', 'cm', 'edited'], { env: { ...k.env, KUBE_EDITOR: editor, EDITOR: editor } });
    assert.is(r.code, 0, `kubectl edit: ${r.stderr}`);
    assert.match(r.stdout, /configmap\/edited edited/);
    assert.is(await ok('get', 'cm', 'edited', '-o', 'jsonpath={.data.k}'), 'after');
    await ok('delete', 'cm', 'edited', '--wait=false');
  });

  test('get --raw /openapi/v2 is the JSON document kubectl validated with', async () => {
    const doc = JSON.parse(await ok('get', '--raw', '/openapi/v2'));
    assert.is(doc.swagger, '2.0');
    assert.is(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].get.operationId, 'readCoreV1NamespacedConfigMap');
    assert.ok(doc.definitions['io.k8s.api.core.v1.ConfigMap']);
  });

  test('delete cm x --wait=false; get of a missing object → exit 1, NotFound', async () => {
    assert.match(await ok('delete', 'cm', 'x', '--wait=false'), /configmap "x" deleted/);
    const r = await kubectl('get', 'cm', 'x');
    assert.is(r.code, 1);
    assert.match(r.stderr, /NotFound/);
    assert.match(r.stderr, /configmaps "x" not found/);
    const r2 = await kubectl('delete', 'cm', 'x', '--wait=false');
    assert.is(r2.code, 1);
    assert.match(r2.stderr, /NotFound/);
    // --ignore-not-found turns it into success
    const r3 = await kubectl('get', 'cm', 'x', '--ignore-not-found');
    assert.is(r3.code, 0);
    assert.is(r3.stdout.trim(), '');
  });

  test('get secret (none yet) and a Secret created from YAML', async () => {
    const empty = await kubectl('get', 'secret');
    assert.is(empty.code, 0);
    assert.match(empty.stderr, /No resources found in default namespace/);

    const file = join(server.dataDir, 'secret.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s1\nstringData:\n  user: admin\n');
    await ok('create', '-f', file);
    const rows = table(await ok('get', 'secret'));
    assert.equal(rows[0], ['NAME', 'TYPE', 'DATA', 'AGE']);
    assert.equal(rows[1].slice(0, 3), ['s1', 'Opaque', '1']);
    const user = await ok('get', 'secret', 's1', '-o', 'jsonpath={.data.user}');
    assert.is(Buffer.from(user, 'base64').toString(), 'admin');
    await ok('delete', 'secret', 's1', '--wait=false');
  });

  test('namespace from YAML: create, delete (waits for it to be gone), not found after', async () => {
    const file = join(server.dataDir, 'ns.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: k2\n');
    await ok('create', '-f', file);
    assert.equal(table(await ok('get', 'ns', 'k2')).slice(1).map((r) => r.slice(0, 2)), [['k2', 'Active']]);
    await ok('delete', 'ns', 'k2', '--wait=false');
    let gone = false;
    for (let i = 0; i < 50 && !gone; i++) {
      const r = await kubectl('get', 'ns', 'k2', '-o', 'jsonpath={.status.phase}');
      if (r.code === 1 && /NotFound/.test(r.stderr)) gone = true;
      else {
        assert.is(r.stdout, 'Terminating');
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    assert.ok(gone, 'namespace k2 eventually gone');
    const forbidden = await kubectl('delete', 'ns', 'default', '--wait=false');
    assert.is(forbidden.code, 1);
    assert.match(forbidden.stderr, /Forbidden/);
  });

  test('discovery: api-resources, version, get --raw /readyz', async () => {
    const res = table(await ok('api-resources'));
    const names = res.slice(1).map((r) => r[0]);
    for (const n of ['configmaps', 'namespaces', 'secrets']) assert.ok(names.includes(n), n);
    const v = JSON.parse(await ok('version', '-o', 'json'));
    assert.match(v.serverVersion.gitVersion, /^v1\.24\./);
    assert.is((await ok('get', '--raw', '/readyz')).trim(), 'ok');
  });

  // kubectl's generators (create namespace / create configmap / create secret) send protobuf bodies.
  test('kubectl create namespace k1 (protobuf body)', async () => {
    const r = await kubectl('create', 'namespace', 'k1');
    assert.is(r.code, 0, `exit ${r.code}: ${r.stderr}`);
    assert.match(r.stdout, /namespace\/k1 created/);
    const ns = JSON.parse(await ok('get', 'ns', 'k1', '-o', 'json'));
    assert.is(ns.status.phase, 'Active');
  });

  test('kubectl create configmap c1 --from-literal=a=b -n k1 (protobuf body)', async () => {
    const r = await kubectl('create', 'configmap', 'c1', '--from-literal=a=b', '-n', 'k1');
    assert.is(r.code, 0, `exit ${r.code}: ${r.stderr}`);
    assert.match(r.stdout, /configmap\/c1 created/);
    const cm = JSON.parse(await ok('get', 'cm', 'c1', '-n', 'k1', '-o', 'json'));
    assert.equal(cm.data, { a: 'b' });
  });

  test('kubectl create secret generic s2 --from-literal=u=p (protobuf body)', async () => {
    const r = await kubectl('create', 'secret', 'generic', 's2', '--from-literal=u=p');
    assert.is(r.code, 0, `exit ${r.code}: ${r.stderr}`);
    const s = JSON.parse(await ok('get', 'secret', 's2', '-o', 'json'));
    assert.is(s.type, 'Opaque');
    assert.is(Buffer.from(s.data.u, 'base64').toString(), 'p');
  });
}
