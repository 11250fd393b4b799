/**
 * Records golden.json from a real kube-apiserver (the reference 1.24.17):
 *
 *   /work/shared/reference/start.sh /tmp/ref-crdschema 16523
 *   node --import tsx internal/apiextensions/testdata/record.ts /tmp/ref-crdschema/kubeconfig [--check]
 *
 * With --check nothing is written: the answers are compared with golden.json (causes as sets, as
 * kube orders sibling fields' errors by Go map iteration; Go heap addresses masked) and the
 * differences listed.
 * Reads cases.yaml beside it: creates each CRD of `crds` (replacing an older one), waits until it
 * is Established, POSTs each of `resources` with ?dryRun=All (nothing is stored) and each CRD of
 * `structural` with ?dryRun=All, and writes every answer ({code, body}) to golden.json. Volatile
 * fields (uid, creationTimestamp, managedFields, resourceVersion) are dropped from the bodies.
 * Standalone on purpose (no import of test/): internal/ may not import test/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { Agent, request } from 'undici';
import { loadCases, loadGolden, crdObject, type Answer, type Golden } from './cases.ts';

const here = dirname(fileURLToPath(import.meta.url));
const kubeconfigPath = process.argv[2];
if (!kubeconfigPath) throw new Error('usage: record.ts <kubeconfig>');

const kc = parseYaml(readFileSync(kubeconfigPath, 'utf8')) as any;
const ctx = kc.contexts.find((c: any) => c.name === kc['current-context']).context;
const cluster = kc.clusters.find((c: any) => c.name === ctx.cluster).cluster;
const user = kc.users.find((u: any) => u.name === ctx.user).user;
const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
const server = String(cluster.server).replace(/\/$/, '');
const agent = new Agent({
  connect: { ca: b64(cluster['certificate-authority-data']), cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) },
});

async function call(method: string, path: string, body?: unknown): Promise<{ code: number; body: any }> {
  const res = await request(server + path, {
    method: method as 'GET',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { code: res.statusCode, body: text ? JSON.parse(text) : null };
}

function scrub(body: any): any {
  const meta = body?.metadata;
  if (meta) for (const k of ['uid', 'creationTimestamp', 'managedFields', 'resourceVersion']) delete meta[k];
  return body;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const cases = loadCases();
const golden: Golden = { resources: {}, structural: {} };

for (const crd of cases.crds) {
  const obj = crdObject(cases.group, crd);
  const name = obj.metadata.name;
  if ((await call('DELETE', `${CRDS}/${name}`)).code === 200) {
    while ((await call('GET', `${CRDS}/${name}`)).code !== 404) await sleep(200);
  }
  const created = await call('POST', CRDS, obj);
  if (created.code !== 201) throw new Error(`creating ${name}: ${JSON.stringify(created.body)}`);
  for (;;) {
    const got = await call('GET', `${CRDS}/${name}`);
    if (got.body?.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True')) break;
    await sleep(200);
  }
}
// Discovery of a new CRD's group can lag its Established condition by a moment.
await sleep(2000);

for (const rc of cases.resources) {
  const crd = cases.crds.find((c) => c.plural === rc.plural)!;
  const ns = crd.scope === 'Namespaced' ? '/namespaces/default' : '';
  const obj = { apiVersion: `${cases.group}/v1`, kind: crd.kind, ...rc.object, metadata: { name: rc.name, ...(rc.object.metadata as object) } };
  const res = await call('POST', `/apis/${cases.group}/v1${ns}/${rc.plural}?dryRun=All`, obj);
  golden.resources[rc.name] = { code: res.code, body: scrub(res.body) };
}

for (const sc of cases.structural) {
  const obj = crdObject(cases.group, { plural: `s${sc.name.replace(/-/g, '')}`, kind: 'S', scope: 'Namespaced', schema: sc.schema, subresources: sc.subresources }, sc.v2Schema);
  const res = await call('POST', `${CRDS}?dryRun=All`, obj);
  golden.structural[sc.name] = { code: res.code, body: res.code === 201 ? null : res.body };
}

if (process.argv.includes('--check')) {
  const old = loadGolden();
  const norm = (a: Answer | undefined): string =>
    JSON.stringify(a && { code: a.code, body: a.body?.details ? { ...a.body, message: undefined, details: { ...a.body.details, causes: (a.body.details.causes ?? []).map((c: unknown) => JSON.stringify(c).replace(/\(0x[0-9a-f]+\)/g, '(0xADDR)')).sort() } } : a.body });
  const diffs = [...Object.entries(golden.resources), ...Object.entries(golden.structural)].filter(([k, a]) => norm(a) !== norm(old.resources[k] ?? old.structural[k]));
  for (const [k] of diffs) console.log(`differs: ${k}`);
  console.log(`checked ${Object.keys(golden.resources).length + Object.keys(golden.structural).length} answers: ${diffs.length} differ from golden.json`);
  process.exitCode = diffs.length ? 1 : 0;
} else {
  writeFileSync(join(here, 'golden.json'), JSON.stringify(golden, null, 1) + '\n');
  console.log(`recorded ${Object.keys(golden.resources).length} resources, ${Object.keys(golden.structural).length} structural cases`);
}
await agent.close();
