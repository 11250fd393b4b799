/**
 * kubectl scenarios an operator runs every day, against this server and (TEST_KUBECONFIG) the
 * reference kube-apiserver 1.24, asserting what kubectl prints there: version / api-versions,
 * output formats (-o wide|name|jsonpath|custom-columns|json), -A, -l, --field-selector,
 * `get -w` seeing a concurrent change, --chunk-size paging, --dry-run=server on every write verb
 * (nothing changes), delete of an object with a finalizer plus `wait --for=delete`,
 * `wait --for=condition`, diff, explain, `get --raw` of /metrics and /readyz?verbose, and the
 * deprecation warning of a v1beta1 API.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTarget, type Target } from './target.ts';
import { kubectlFor, kubectlSuite, tableRows, type Kubectl } from './kubectl-run.ts';

let t: Target;
let k: Kubectl;
let ns: string;
const files = mkdtempSync(join(tmpdir(), 'kubectl-scenarios-'));

const cmYaml = (name: string, data: Record<string, string>, extra = ''): string => {
  const f = join(files, `${name}-${Object.values(data).join('-')}.yaml`);
  writeFileSync(f, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n${extra}data:\n${Object.entries(data).map(([a, b]) => `  ${a}: ${b}`).join('\n')}\n`);
  return f;
};

async function until(what: string, ms: number, f: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

await kubectlSuite(() => {
  test.before(async () => {
    t = await startTarget();
    ns = await t.createNamespace('kscen');
    k = kubectlFor(t.kubeconfig);
    for (const [n, tier] of [['alpha', 'web'], ['beta', 'db'], ['gamma', 'web']] as const) {
      await k.ok('-n', ns, 'create', 'configmap', n, `--from-literal=tier=${tier}`);
      await k.ok('-n', ns, 'label', 'configmap', n, `tier=${tier}`);
    }
  });
  test.after(async () => {
    await t?.close();
  });

  test('version and api-versions', async () => {
    const v = JSON.parse((await k.run('version', '-o', 'json')).stdout);
    assert.is(v.serverVersion.major, '1');
    assert.is(v.serverVersion.minor, '24');
    const gvs = (await k.ok('api-versions')).trim().split('\n');
    for (const gv of ['v1', 'authorization.k8s.io/v1', 'events.k8s.io/v1', 'events.k8s.io/v1beta1']) assert.ok(gvs.includes(gv), `${gv} in ${gvs.join(' ')}`);
  });

  test('output formats: name, jsonpath, custom-columns, wide, json; -l, --field-selector, -A', async () => {
    assert.is(await k.ok('-n', ns, 'get', 'cm', '-l', 'tier=web', '-o', 'name'), 'configmap/alpha\nconfigmap/gamma\n');
    assert.is(await k.ok('-n', ns, 'get', 'cm', '-l', 'tier', '-o', 'jsonpath={.items[*].metadata.name}'), 'alpha beta gamma');
    assert.equal(tableRows(await k.ok('-n', ns, 'get', 'cm', '-l', 'tier', '-o', 'custom-columns=NAME:.metadata.name,TIER:.data.tier')), [['NAME', 'TIER'], ['alpha', 'web'], ['beta', 'db'], ['gamma', 'web']]);
    const wide = tableRows(await k.ok('-n', ns, 'get', 'cm', 'beta', '-o', 'wide'));
    assert.equal(wide[0], ['NAME', 'DATA', 'AGE']);
    assert.equal(wide[1]!.slice(0, 2), ['beta', '1']);
    assert.is(JSON.parse(await k.ok('-n', ns, 'get', 'cm', 'beta', '-o', 'json')).data.tier, 'db');
    assert.is(await k.ok('-n', ns, 'get', 'cm', '--field-selector', 'metadata.name=beta', '-o', 'name'), 'configmap/beta\n');
    // -A across namespaces: a label unique to this run (a long-lived reference keeps earlier runs').
    await k.ok('-n', ns, 'label', 'configmap', 'beta', `run=${ns}`);
    const all = tableRows(await k.ok('get', 'cm', '-A', '-l', `run=${ns}`));
    assert.equal(all[0], ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
    assert.equal(all.slice(1).map((r) => r.slice(0, 2)), [[ns, 'beta']]);
  });

  test('get -w --output-watch-events sees a concurrent create and delete', async () => {
    const w = k.spawn('-n', ns, 'get', 'cm', '-l', 'watched', '-w', '--output-watch-events');
    try {
      await new Promise((r) => setTimeout(r, 1500));
      await k.ok('-n', ns, 'create', 'configmap', 'watched-1');
      await k.ok('-n', ns, 'label', 'configmap', 'watched-1', 'watched=yes');
      await k.ok('-n', ns, 'delete', 'configmap', 'watched-1');
      await until('ADDED and DELETED rows', 15_000, () => /DELETED\s+watched-1/.test(w.output()));
      const rows = tableRows(w.output()).filter((r) => r[1] === 'watched-1').map((r) => r[0]);
      assert.equal(rows, ['ADDED', 'DELETED'], w.output());
    } finally {
      await w.stop();
    }
  });

  test('--chunk-size pages the list (limit and continue on the wire), output unchanged', async () => {
    const r = await k.run('-n', ns, 'get', 'cm', '-l', 'tier', '--chunk-size=1', '-o', 'name', '-v=6');
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'configmap/alpha\nconfigmap/beta\nconfigmap/gamma\n');
    const gets = r.stderr.split('\n').filter((l) => l.includes(`/namespaces/${ns}/configmaps?`));
    assert.is(gets.length, 3, gets.join('\n'));
    assert.ok(gets[0]!.includes('limit=1') && gets.slice(1).every((l) => l.includes('continue=')), gets.join('\n'));
  });

  test('--dry-run=server on every write: kubectl says so and nothing changes', async () => {
    const before = JSON.parse(await k.ok('-n', ns, 'get', 'cm', 'alpha', '-o', 'json'));
    const writes: [string[], string][] = [
      [['create', 'configmap', 'dry-new', '--from-literal=a=b'], 'configmap/dry-new created (server dry run)'],
      [['apply', '-f', cmYaml('alpha', { tier: 'changed' })], 'configmap/alpha configured (server dry run)'],
      // kubectl 1.32 prints no dry-run marker for patch (as against the reference).
      [['patch', 'configmap', 'alpha', '--type=merge', '-p', '{"data":{"x":"y"}}'], 'configmap/alpha patched'],
      [['label', 'configmap', 'alpha', 'dry=run'], 'configmap/alpha labeled (server dry run)'],
      [['annotate', 'configmap', 'alpha', 'dry=run'], 'configmap/alpha annotated (server dry run)'],
      [['replace', '-f', cmYaml('alpha', { tier: 'replaced' })], 'configmap/alpha replaced (server dry run)'],
      [['delete', 'configmap', 'alpha'], 'configmap "alpha" deleted (server dry run)'],
    ];
    for (const [args, out] of writes) assert.is((await k.ok('-n', ns, ...args, '--dry-run=server')).trim(), out, args.join(' '));
    const after = JSON.parse(await k.ok('-n', ns, 'get', 'cm', 'alpha', '-o', 'json'));
    assert.equal(after, before, 'object unchanged');
    assert.is((await k.run('-n', ns, 'get', 'cm', 'dry-new')).code, 1, 'dry-run create stored nothing');
  });

  test('delete of an object with a finalizer, wait --for=delete completes once it is removed', async () => {
    await k.ok('-n', ns, 'create', '-f', cmYaml('fin', { a: 'b' }, '  finalizers:\n  - example.com/hold\n'));
    assert.is((await k.ok('-n', ns, 'delete', 'configmap', 'fin', '--wait=false')).trim(), 'configmap "fin" deleted');
    const o = JSON.parse(await k.ok('-n', ns, 'get', 'cm', 'fin', '-o', 'json'));
    assert.ok(o.metadata.deletionTimestamp, 'terminating');
    const waiter = k.run('-n', ns, 'wait', '--for=delete', 'configmap/fin', '--timeout=30s');
    await new Promise((r) => setTimeout(r, 1000));
    await k.ok('-n', ns, 'patch', 'configmap', 'fin', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    const w = await waiter;
    assert.is(w.code, 0, w.stderr);
    assert.is(w.stdout.trim(), 'configmap/fin condition met');
  });

  test('wait --for=condition on a status condition', async () => {
    const waiter = k.run('wait', '--for=condition=Audited', `namespace/${ns}`, '--timeout=30s');
    await new Promise((r) => setTimeout(r, 1000));
    await k.ok('patch', 'namespace', ns, '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"Audited","status":"True"}]}}');
    const w = await waiter;
    assert.is(w.code, 0, w.stderr);
    assert.is(w.stdout.trim(), `namespace/${ns} condition met`);
  });

  test('diff: exit 1 with the change shown, exit 0 when equal', async () => {
    await k.ok('-n', ns, 'apply', '-f', cmYaml('differ', { k: 'v' }));
    const changed = await k.run('-n', ns, 'diff', '-f', cmYaml('differ', { k: 'changed' }));
    assert.is(changed.code, 1, changed.stderr);
    assert.match(changed.stdout, '-  k: v\n+  k: changed\n');
    const same = await k.run('-n', ns, 'diff', '-f', cmYaml('differ', { k: 'v' }));
    assert.is(same.code, 0, same.stdout + same.stderr);
    assert.is(same.stdout, '');
  });

  test('explain reads the served OpenAPI', async () => {
    const out = await k.ok('explain', 'configmap.data');
    assert.match(out, 'KIND:       ConfigMap\nVERSION:    v1\n\nFIELD: data <map[string]string>\n');
  });

  test('get --raw: /metrics and /readyz?verbose', async () => {
    assert.match(await k.ok('get', '--raw', '/metrics'), /^apiserver_request_total\{/m);
    const ready = await k.ok('get', '--raw', '/readyz?verbose');
    assert.match(ready, '[+]etcd ok\n');
    assert.match(ready, 'readyz check passed');
  });

  test('a deprecated API version: kubectl shows the server warning', async () => {
    const r = await k.run('-n', ns, 'get', 'events.v1beta1.events.k8s.io');
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, 'Warning: events.k8s.io/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+');
  });
});
