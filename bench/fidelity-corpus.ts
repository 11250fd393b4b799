/**
 * The request corpus of `npm run fidelity` (bench/fidelity.ts): a few hundred requests on
 * configmaps, secrets and namespaces, list options, watches, patches, dry-run, deletes, errors,
 * tables, discovery, health and version. The same steps run in the same order against the
 * reference kube-apiserver and this server, with the same names.
 *
 * Placeholders in paths and bodies: `{ns}`, `{ns2}` (this run's namespaces), `{run}` (the run id,
 * also the value of the `fidelity-run` label on everything created) and `{<var>}` for a value
 * captured from an earlier answer on the same target (`capture`), e.g. a resourceVersion,
 * uid, continue token or generated name. Captured values are replaced by `<var>` before answers
 * are compared, so they may differ between the two servers.
 *
 * Steps must not depend on controllers (the reference has no controller-manager): nothing reads
 * a namespace after deleting it, and nothing waits for garbage collection.
 */

/** Categories the report groups by, in print order. */
export const CATEGORIES = ['configmaps', 'secrets', 'namespaces', 'list', 'watch', 'patch', 'dry-run', 'delete', 'errors', 'negotiation', 'tables', 'discovery', 'health', 'version'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Which credentials a step uses. */
export type Identity = 'admin' | 'anonymous';

/** One request of the corpus. */
export interface Step {
  cat: Category;
  /** Short human description, unique within the corpus. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';
  path: string;
  /** JSON body (placeholders substituted inside strings). */
  body?: unknown;
  /** Raw body text (placeholders substituted), sent as is. */
  raw?: string;
  contentType?: string;
  /** Accept header (default application/json). */
  accept?: string;
  headers?: Record<string, string>;
  identity?: Identity;
  /** Variables to capture from this answer's JSON body: var name → dotted path (`items.0.metadata.name`). */
  capture?: Record<string, string>;
  /** Compare only this part of the JSON body (e.g. one entry of a discovery document). */
  project?: (body: any) => unknown;
  /** Body is binary (protobuf): compare status and headers only. */
  binary?: boolean;
}

const J = 'application/json';
const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const TABLE_V1BETA1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MERGE = 'application/merge-patch+json';
const JSONPATCH = 'application/json-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** The label every object of the run carries, so cluster-wide lists see only this run. */
const LABELS = { 'fidelity-run': '{run}' };
const SEL = 'labelSelector=fidelity-run%3D{run}';

const cm = (name: string, data: Record<string, string> = { a: '1' }, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { ...LABELS, ...((extra.labels as object) ?? {}) }, ...((extra.metadata as object) ?? {}) },
  data,
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'labels' && k !== 'metadata')),
});

const secret = (name: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, labels: { ...LABELS } },
  ...extra,
});

const CMS = '/api/v1/namespaces/{ns}/configmaps';
const SECRETS = '/api/v1/namespaces/{ns}/secrets';

/** Path of one object, by resource: `obj('configmaps', 'x')`. */
const obj = (resource: string, name: string, ns = '{ns}'): string => `/api/v1/namespaces/${ns}/${resource}/${name}`;

function configmaps(): Step[] {
  const c = 'configmaps' as const;
  return [
    { cat: c, name: 'create configmap', method: 'POST', path: CMS, body: cm('cm-a', { a: '1', b: 'two' }), capture: { cmA_rv: 'metadata.resourceVersion', cmA_uid: 'metadata.uid' } },
    { cat: c, name: 'create configmap with binaryData', method: 'POST', path: CMS, body: cm('cm-bin', { t: 'x' }, { binaryData: { bin: 'AAECAw==' } }) },
    { cat: c, name: 'create immutable configmap', method: 'POST', path: CMS, body: cm('cm-imm', { k: 'v' }, { immutable: true }) },
    { cat: c, name: 'create configmap without data', method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-empty', labels: LABELS } } },
    { cat: c, name: 'create configmap with annotations and finalizer', method: 'POST', path: CMS, body: cm('cm-fin', { a: '1' }, { metadata: { annotations: { note: 'hello' }, finalizers: ['example.com/hold'] } }) },
    { cat: c, name: 'create configmap with generateName', method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-gen-', labels: LABELS }, data: { g: '1' } }, capture: { genName: 'metadata.name' } },
    { cat: c, name: 'get generated configmap', method: 'GET', path: obj('configmaps', '{genName}') },
    { cat: c, name: 'create configmap, namespace in body matches', method: 'POST', path: CMS, body: cm('cm-nsbody', {}, { metadata: { namespace: '{ns}' } }) },
    { cat: c, name: 'create configmap without apiVersion/kind', method: 'POST', path: CMS, body: { metadata: { name: 'cm-nokind', labels: LABELS }, data: { a: 'b' } } },
    { cat: c, name: 'get configmap', method: 'GET', path: obj('configmaps', 'cm-a') },
    { cat: c, name: 'get configmap resourceVersion=0', method: 'GET', path: obj('configmaps', 'cm-a') + '?resourceVersion=0' },
    { cat: c, name: 'get configmap at its resourceVersion', method: 'GET', path: obj('configmaps', 'cm-a') + '?resourceVersion={cmA_rv}' },
    { cat: c, name: 'get binary configmap', method: 'GET', path: obj('configmaps', 'cm-bin') },
    { cat: c, name: 'update configmap (PUT) with resourceVersion', method: 'PUT', path: obj('configmaps', 'cm-a'), body: { ...(cm('cm-a', { a: '2', b: 'two' }) as object), metadata: { name: 'cm-a', labels: LABELS, resourceVersion: '{cmA_rv}' } }, capture: { cmA_rv2: 'metadata.resourceVersion' } },
    { cat: c, name: 'update configmap (PUT) stale resourceVersion', method: 'PUT', path: obj('configmaps', 'cm-a'), body: { ...(cm('cm-a', { a: '3' }) as object), metadata: { name: 'cm-a', labels: LABELS, resourceVersion: '{cmA_rv}' } } },
    { cat: c, name: 'update configmap (PUT) unconditional', method: 'PUT', path: obj('configmaps', 'cm-a'), body: cm('cm-a', { a: '4', b: 'two' }) },
    { cat: c, name: 'update configmap (PUT) no change', method: 'PUT', path: obj('configmaps', 'cm-a'), body: cm('cm-a', { a: '4', b: 'two' }) },
    { cat: c, name: 'update configmap (PUT) name mismatch', method: 'PUT', path: obj('configmaps', 'cm-a'), body: cm('cm-other') },
    { cat: c, name: 'update configmap (PUT) uid mismatch', method: 'PUT', path: obj('configmaps', 'cm-a'), body: cm('cm-a', { a: '5' }, { metadata: { uid: '6f1e3f6e-0000-4000-8000-000000000000' } }) },
    { cat: c, name: 'update (PUT) creates missing configmap', method: 'PUT', path: obj('configmaps', 'cm-put-new'), body: cm('cm-put-new') },
    { cat: c, name: 'update immutable configmap data', method: 'PUT', path: obj('configmaps', 'cm-imm'), body: cm('cm-imm', { k: 'changed' }, { immutable: true }) },
    { cat: c, name: 'update immutable configmap to mutable', method: 'PUT', path: obj('configmaps', 'cm-imm'), body: cm('cm-imm', { k: 'v' }, { immutable: false }) },
    { cat: c, name: 'update immutable configmap labels only', method: 'PUT', path: obj('configmaps', 'cm-imm'), body: cm('cm-imm', { k: 'v' }, { immutable: true, labels: { extra: 'yes' } }) },
    { cat: c, name: 'create duplicate configmap', method: 'POST', path: CMS, body: cm('cm-a') },
    { cat: c, name: 'create configmap invalid key', method: 'POST', path: CMS, body: cm('cm-badkey', { 'bad key!': 'x' }) },
    { cat: c, name: 'create configmap empty key', method: 'POST', path: CMS, body: cm('cm-emptykey', { '': 'x' }) },
    { cat: c, name: 'create configmap key in data and binaryData', method: 'POST', path: CMS, body: cm('cm-dup', { k: 'x' }, { binaryData: { k: 'eA==' } }) },
    { cat: c, name: 'create configmap invalid name', method: 'POST', path: CMS, body: cm('Bad_Name') },
    { cat: c, name: 'create configmap name too long', method: 'POST', path: CMS, body: cm('n'.repeat(254)) },
    { cat: c, name: 'create configmap without name', method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: LABELS } } },
    { cat: c, name: 'create configmap invalid label', method: 'POST', path: CMS, body: cm('cm-badlabel', {}, { labels: { 'bad label': 'x' } }) },
    { cat: c, name: 'create configmap namespace in body differs', method: 'POST', path: CMS, body: cm('cm-otherns', {}, { metadata: { namespace: 'somewhere-else' } }) },
    { cat: c, name: 'create configmap over 1 MiB', method: 'POST', path: CMS, body: cm('cm-huge', { big: 'x'.repeat(1024 * 1024 + 10) }) },
    { cat: c, name: 'create configmap wrong kind in body', method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cm-wrongkind' } } },
    { cat: c, name: 'create configmap in second namespace', method: 'POST', path: '/api/v1/namespaces/{ns2}/configmaps', body: cm('cm-a', { other: 'ns' }) },
    { cat: c, name: 'get configmap in second namespace', method: 'GET', path: obj('configmaps', 'cm-a', '{ns2}') },
  ];
}

function secrets(): Step[] {
  const c = 'secrets' as const;
  return [
    { cat: c, name: 'create opaque secret', method: 'POST', path: SECRETS, body: secret('s-a', { data: { user: 'YWRtaW4=' } }), capture: { sA_rv: 'metadata.resourceVersion' } },
    { cat: c, name: 'create secret with stringData', method: 'POST', path: SECRETS, body: secret('s-str', { data: { a: 'YQ==' }, stringData: { a: 'override', b: 'plain' } }) },
    { cat: c, name: 'create secret with explicit Opaque type', method: 'POST', path: SECRETS, body: secret('s-opaque', { type: 'Opaque', data: {} }) },
    { cat: c, name: 'create basic-auth secret', method: 'POST', path: SECRETS, body: secret('s-basic', { type: 'kubernetes.io/basic-auth', stringData: { username: 'u', password: 'p' } }) },
    { cat: c, name: 'create basic-auth secret without keys', method: 'POST', path: SECRETS, body: secret('s-basic-bad', { type: 'kubernetes.io/basic-auth', stringData: { other: 'x' } }) },
    { cat: c, name: 'create ssh-auth secret without key', method: 'POST', path: SECRETS, body: secret('s-ssh-bad', { type: 'kubernetes.io/ssh-auth', data: {} }) },
    { cat: c, name: 'create tls secret missing tls.key', method: 'POST', path: SECRETS, body: secret('s-tls-bad', { type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'x' } }) },
    { cat: c, name: 'create tls secret', method: 'POST', path: SECRETS, body: secret('s-tls', { type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'c', 'tls.key': 'k' } }) },
    { cat: c, name: 'create dockerconfigjson secret invalid json', method: 'POST', path: SECRETS, body: secret('s-docker-bad', { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': 'not json' } }) },
    { cat: c, name: 'create dockerconfigjson secret', method: 'POST', path: SECRETS, body: secret('s-docker', { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"auths":{}}' } }) },
    { cat: c, name: 'create dockercfg secret missing key', method: 'POST', path: SECRETS, body: secret('s-dockercfg-bad', { type: 'kubernetes.io/dockercfg', data: {} }) },
    { cat: c, name: 'create service-account-token secret without annotation', method: 'POST', path: SECRETS, body: secret('s-sa-bad', { type: 'kubernetes.io/service-account-token' }) },
    { cat: c, name: 'create bootstrap token secret', method: 'POST', path: SECRETS, body: secret('s-bootstrap', { type: 'bootstrap.kubernetes.io/token', stringData: { 'token-id': 'abcdef' } }) },
    { cat: c, name: 'create custom-type secret', method: 'POST', path: SECRETS, body: secret('s-custom', { type: 'example.com/custom', data: { x: 'eA==' } }) },
    { cat: c, name: 'create secret invalid base64', method: 'POST', path: SECRETS, body: secret('s-b64', { data: { a: 'not base64!' } }) },
    { cat: c, name: 'create secret invalid key', method: 'POST', path: SECRETS, body: secret('s-badkey', { data: { 'a/b': 'eA==' } }) },
    { cat: c, name: 'create secret empty key', method: 'POST', path: SECRETS, body: secret('s-emptykey', { data: { '': 'eA==' } }) },
    { cat: c, name: 'create immutable secret', method: 'POST', path: SECRETS, body: secret('s-imm', { data: { a: 'YQ==' }, immutable: true }) },
    { cat: c, name: 'get secret', method: 'GET', path: obj('secrets', 's-a') },
    { cat: c, name: 'get stringData secret', method: 'GET', path: obj('secrets', 's-str') },
    { cat: c, name: 'update secret (PUT)', method: 'PUT', path: obj('secrets', 's-a'), body: secret('s-a', { data: { user: 'cm9vdA==' } }) },
    { cat: c, name: 'update secret type (immutable field)', method: 'PUT', path: obj('secrets', 's-a'), body: secret('s-a', { type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } }) },
    { cat: c, name: 'update immutable secret data', method: 'PUT', path: obj('secrets', 's-imm'), body: secret('s-imm', { data: { a: 'Yg==' }, immutable: true }) },
    { cat: c, name: 'update immutable secret to mutable', method: 'PUT', path: obj('secrets', 's-imm'), body: secret('s-imm', { data: { a: 'YQ==' }, immutable: false }) },
    { cat: c, name: 'create duplicate secret', method: 'POST', path: SECRETS, body: secret('s-a') },
    { cat: c, name: 'get missing secret', method: 'GET', path: obj('secrets', 'no-such-secret') },
  ];
}

function namespaces(): Step[] {
  const c = 'namespaces' as const;
  const ns = (name: string, extra: Record<string, unknown> = {}): unknown => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...LABELS } }, ...extra });
  return [
    { cat: c, name: 'create namespace (third)', method: 'POST', path: '/api/v1/namespaces', body: ns('{run}-c'), capture: { nsC_rv: 'metadata.resourceVersion' } },
    { cat: c, name: 'get namespace', method: 'GET', path: '/api/v1/namespaces/{run}-c' },
    { cat: c, name: 'get namespace status subresource', method: 'GET', path: '/api/v1/namespaces/{run}-c/status' },
    { cat: c, name: 'create namespace with spec.finalizers', method: 'POST', path: '/api/v1/namespaces', body: ns('{run}-fin', { spec: { finalizers: ['example.com/x'] } }) },
    { cat: c, name: 'create namespace with status phase', method: 'POST', path: '/api/v1/namespaces', body: ns('{run}-phase', { status: { phase: 'Terminating' } }) },
    { cat: c, name: 'create namespace generateName', method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: '{run}-g-', labels: LABELS } }, capture: { nsGen: 'metadata.name' } },
    { cat: c, name: 'create namespace invalid name', method: 'POST', path: '/api/v1/namespaces', body: ns('Bad.Name') },
    { cat: c, name: 'create namespace with dots', method: 'POST', path: '/api/v1/namespaces', body: ns('{run}.dotted') },
    { cat: c, name: 'create duplicate namespace', method: 'POST', path: '/api/v1/namespaces', body: ns('{run}-c') },
    { cat: c, name: 'update namespace labels', method: 'PUT', path: '/api/v1/namespaces/{run}-c', body: ns('{run}-c', { metadata: { name: '{run}-c', labels: { ...LABELS, team: 'a' } } }) },
    { cat: c, name: 'update namespace status (PUT status)', method: 'PUT', path: '/api/v1/namespaces/{run}-c/status', body: ns('{run}-c', { status: { phase: 'Active', conditions: [] } }) },
    { cat: c, name: 'update namespace spec.finalizers via PUT (ignored)', method: 'PUT', path: '/api/v1/namespaces/{run}-c', body: ns('{run}-c', { spec: { finalizers: ['example.com/y'] } }) },
    { cat: c, name: 'finalize namespace (PUT finalize)', method: 'PUT', path: '/api/v1/namespaces/{run}-c/finalize', body: ns('{run}-c', { spec: { finalizers: ['kubernetes', 'example.com/z'] } }) },
    { cat: c, name: 'finalize with invalid finalizer name', method: 'PUT', path: '/api/v1/namespaces/{run}-c/finalize', body: ns('{run}-c', { spec: { finalizers: ['bad name'] } }) },
    { cat: c, name: 'get default namespace', method: 'GET', path: '/api/v1/namespaces/default', project: (b) => ({ ...b, metadata: { ...b?.metadata, managedFields: undefined } }) },
    { cat: c, name: 'get kube-system namespace', method: 'GET', path: '/api/v1/namespaces/kube-system', project: (b) => ({ ...b, metadata: { ...b?.metadata, managedFields: undefined } }) },
    { cat: c, name: 'get kube-public namespace', method: 'GET', path: '/api/v1/namespaces/kube-public', project: (b) => ({ ...b, metadata: { ...b?.metadata, managedFields: undefined } }) },
    { cat: c, name: 'get kube-node-lease namespace', method: 'GET', path: '/api/v1/namespaces/kube-node-lease', project: (b) => ({ ...b, metadata: { ...b?.metadata, managedFields: undefined } }) },
    { cat: c, name: 'list namespaces of this run', method: 'GET', path: `/api/v1/namespaces?${SEL}` },
    { cat: c, name: 'list namespaces by field metadata.name', method: 'GET', path: '/api/v1/namespaces?fieldSelector=metadata.name%3D{run}-c' },
    { cat: c, name: 'list namespaces by field status.phase', method: 'GET', path: `/api/v1/namespaces?${SEL}&fieldSelector=status.phase%3DActive` },
    { cat: c, name: 'get missing namespace', method: 'GET', path: '/api/v1/namespaces/{run}-missing' },
    { cat: c, name: 'create configmap in missing namespace', method: 'POST', path: '/api/v1/namespaces/{run}-missing/configmaps', body: cm('x') },
    { cat: c, name: 'delete kube-system (protected)', method: 'DELETE', path: '/api/v1/namespaces/kube-system?dryRun=All' },
    { cat: c, name: 'delete default (protected)', method: 'DELETE', path: '/api/v1/namespaces/default' },
    { cat: c, name: 'delete kube-public (protected)', method: 'DELETE', path: '/api/v1/namespaces/kube-public?dryRun=All' },
    { cat: c, name: 'delete namespace', method: 'DELETE', path: '/api/v1/namespaces/{run}-fin' },
    { cat: c, name: 'delete namespace again (already terminating)', method: 'DELETE', path: '/api/v1/namespaces/{run}-fin' },
    { cat: c, name: 'delete namespace with precondition uid mismatch', method: 'DELETE', path: '/api/v1/namespaces/{run}-c', body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: '6f1e3f6e-0000-4000-8000-000000000000' } } },
    { cat: c, name: 'deletecollection namespaces (not allowed)', method: 'DELETE', path: `/api/v1/namespaces?${SEL}&dryRun=All` },
  ];
}

function lists(): Step[] {
  const c = 'list' as const;
  const L = (name: string, query: string, base = CMS): Step => ({ cat: c, name, method: 'GET', path: `${base}?${query}` });
  return [
    // Names where one is a prefix of another followed by '-' or '.': etcd's key order puts "ord" first.
    ...['ord-x', 'ord', 'ord.y', 'ord0'].map((n): Step => ({ cat: c, name: `create ${n} (list order)`, method: 'POST', path: '/api/v1/namespaces/{ns2}/configmaps', body: cm(n, {}, { labels: { ord: 'yes' } }) })),
    { cat: c, name: 'list order of prefix names', method: 'GET', path: '/api/v1/namespaces/{ns2}/configmaps?labelSelector=ord', project: (b) => (b?.items ?? []).map((i: any) => i?.metadata?.name) },
    { cat: c, name: 'list configmaps in namespace', method: 'GET', path: CMS, capture: { listRv: 'metadata.resourceVersion' } },
    L('list configmaps labelSelector =', 'labelSelector=extra%3Dyes'),
    L('list configmaps labelSelector ==', 'labelSelector=extra%3D%3Dyes'),
    L('list configmaps labelSelector !=', 'labelSelector=extra!%3Dyes'),
    L('list configmaps labelSelector in', 'labelSelector=extra%20in%20(yes,no)'),
    L('list configmaps labelSelector notin', 'labelSelector=extra%20notin%20(yes)'),
    L('list configmaps labelSelector exists', 'labelSelector=extra'),
    L('list configmaps labelSelector !exists', 'labelSelector=!extra'),
    L('list configmaps labelSelector two terms', 'labelSelector=extra,fidelity-run'),
    L('list configmaps labelSelector invalid', 'labelSelector=a%20in%20b'),
    L('list configmaps labelSelector invalid value', 'labelSelector=a%3Db%20c'),
    L('list configmaps fieldSelector metadata.name', 'fieldSelector=metadata.name%3Dcm-a'),
    L('list configmaps fieldSelector metadata.name !=', 'fieldSelector=metadata.name!%3Dcm-a'),
    L('list configmaps fieldSelector metadata.namespace', 'fieldSelector=metadata.namespace%3D{ns}'),
    L('list configmaps fieldSelector unsupported field', 'fieldSelector=data.a%3D1'),
    L('list configmaps fieldSelector invalid syntax', 'fieldSelector=metadata.name'),
    L('list secrets fieldSelector type', 'fieldSelector=type%3Dkubernetes.io/tls', SECRETS),
    L('list secrets fieldSelector type !=', 'fieldSelector=type!%3DOpaque', SECRETS),
    { cat: c, name: 'list configmaps limit=2', method: 'GET', path: `${CMS}?limit=2`, capture: { cont1: 'metadata.continue' } },
    { cat: c, name: 'list configmaps continue page 2', method: 'GET', path: `${CMS}?limit=2&continue={cont1}`, capture: { cont2: 'metadata.continue' } },
    { cat: c, name: 'list configmaps continue page 3', method: 'GET', path: `${CMS}?limit=2&continue={cont2}` },
    L('list configmaps continue without limit', 'continue={cont1}'),
    L('list configmaps continue invalid token', 'limit=2&continue=bm90LWEtdG9rZW4'),
    L('list configmaps continue with resourceVersion', 'limit=2&continue={cont1}&resourceVersion={listRv}'),
    L('list configmaps limit=0', 'limit=0'),
    L('list configmaps limit=-1', 'limit=-1'),
    L('list configmaps limit=abc', 'limit=abc'),
    L('list configmaps limit=1000', 'limit=1000'),
    L('list configmaps resourceVersion=0', 'resourceVersion=0'),
    L('list configmaps resourceVersion=0 limit=1', 'resourceVersion=0&limit=1'),
    L('list configmaps resourceVersion exact', 'resourceVersion={listRv}&resourceVersionMatch=Exact'),
    L('list configmaps resourceVersion NotOlderThan', 'resourceVersion={listRv}&resourceVersionMatch=NotOlderThan'),
    L('list configmaps resourceVersion (legacy semantics)', 'resourceVersion={listRv}'),
    L('list configmaps resourceVersionMatch without resourceVersion', 'resourceVersionMatch=Exact'),
    L('list configmaps resourceVersionMatch invalid', 'resourceVersion={listRv}&resourceVersionMatch=Newest'),
    L('list configmaps resourceVersion=0 Exact', 'resourceVersion=0&resourceVersionMatch=Exact'),
    L('list configmaps resourceVersion invalid', 'resourceVersion=abc'),
    L('list configmaps exact too old', 'resourceVersion=2&resourceVersionMatch=Exact'),
    L('list configmaps limit+continue+labelSelector', `limit=1&${SEL}`),
    L('list configmaps timeoutSeconds', 'timeoutSeconds=5'),
    L('list configmaps allowWatchBookmarks without watch', 'allowWatchBookmarks=true'),
    L('list configmaps unknown query parameter', 'foo=bar'),
    L('list configmaps pretty=true', 'pretty=true'),
    { cat: c, name: 'list configmaps all namespaces', method: 'GET', path: `/api/v1/configmaps?${SEL}` },
    { cat: c, name: 'list configmaps all namespaces limit=3', method: 'GET', path: `/api/v1/configmaps?${SEL}&limit=3`, capture: { contAll: 'metadata.continue' } },
    { cat: c, name: 'list configmaps all namespaces continue', method: 'GET', path: `/api/v1/configmaps?${SEL}&limit=3&continue={contAll}` },
    { cat: c, name: 'list configmaps all namespaces by namespace field', method: 'GET', path: `/api/v1/configmaps?${SEL}&fieldSelector=metadata.namespace%3D{ns2}` },
    { cat: c, name: 'list secrets all namespaces', method: 'GET', path: `/api/v1/secrets?${SEL}` },
    { cat: c, name: 'list secrets in namespace', method: 'GET', path: SECRETS },
    { cat: c, name: 'list configmaps in empty namespace', method: 'GET', path: '/api/v1/namespaces/{run}-c/configmaps' },
    { cat: c, name: 'list configmaps in missing namespace', method: 'GET', path: '/api/v1/namespaces/{run}-missing/configmaps' },
  ];
}

function watches(): Step[] {
  const c = 'watch' as const;
  const W = (name: string, query: string, extra: Partial<Step> = {}): Step => ({ cat: c, name, method: 'GET', path: `${CMS}?watch=1&timeoutSeconds=1&${query}`, ...extra });
  return [
    { cat: c, name: 'mark: resourceVersion before watch writes', method: 'GET', path: `${CMS}?limit=1`, capture: { wRv: 'metadata.resourceVersion' } },
    { cat: c, name: 'watch: create cm-w', method: 'POST', path: CMS, body: cm('cm-w', { v: '1' }, { labels: { w: 'yes' } }) },
    { cat: c, name: 'watch: update cm-w', method: 'PUT', path: obj('configmaps', 'cm-w'), body: cm('cm-w', { v: '2' }, { labels: { w: 'yes' } }) },
    { cat: c, name: 'watch: relabel cm-w (stops matching w=yes)', method: 'PUT', path: obj('configmaps', 'cm-w'), body: cm('cm-w', { v: '2' }, { labels: { w: 'no' } }) },
    { cat: c, name: 'watch: delete cm-w', method: 'DELETE', path: obj('configmaps', 'cm-w') },
    W('watch from resourceVersion', 'resourceVersion={wRv}'),
    W('watch from resourceVersion, label selector w=yes', 'resourceVersion={wRv}&labelSelector=w%3Dyes'),
    W('watch from resourceVersion, field selector', 'resourceVersion={wRv}&fieldSelector=metadata.name%3Dcm-w'),
    W('watch from resourceVersion, bookmarks allowed', 'resourceVersion={wRv}&allowWatchBookmarks=true&labelSelector=w'),
    W('watch without resourceVersion (initial ADDED)', `labelSelector=extra%3Dyes`),
    W('watch resourceVersion=0 (initial ADDED)', 'resourceVersion=0&fieldSelector=metadata.name%3Dcm-a'),
    W('watch too old resourceVersion', 'resourceVersion=1'),
    W('watch invalid resourceVersion', 'resourceVersion=abc'),
    W('watch invalid label selector', 'labelSelector=a%20in%20b'),
    W('watch unsupported field selector', 'fieldSelector=data.a%3D1'),
    W('watch with resourceVersionMatch', 'resourceVersion={wRv}&resourceVersionMatch=NotOlderThan'),
    W('watch as Table', 'resourceVersion={wRv}&labelSelector=w', { accept: TABLE_V1 }),
    W('watch as protobuf', 'resourceVersion={wRv}&labelSelector=w', { accept: PROTOBUF, binary: true }),
    { cat: c, name: 'watch single object by name (watch=true on list + fieldSelector)', method: 'GET', path: `${CMS}?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dcm-a&resourceVersion={wRv}` },
    { cat: c, name: 'watch all namespaces with selector', method: 'GET', path: `/api/v1/configmaps?watch=1&timeoutSeconds=1&resourceVersion={wRv}&labelSelector=w,fidelity-run%3D{run}` },
    { cat: c, name: 'watch namespaces of this run', method: 'GET', path: `/api/v1/namespaces?watch=1&timeoutSeconds=1&resourceVersion={wRv}&${SEL}` },
    { cat: c, name: 'legacy /api/v1/watch path', method: 'GET', path: `/api/v1/watch/namespaces/{ns}/configmaps?timeoutSeconds=1&resourceVersion={wRv}&labelSelector=w` },
    { cat: c, name: 'legacy /api/v1/watch single object', method: 'GET', path: `/api/v1/watch/namespaces/{ns}/configmaps/cm-a?timeoutSeconds=1&resourceVersion={wRv}` },
    { cat: c, name: 'watch secrets from resourceVersion', method: 'GET', path: `${SECRETS}?watch=1&timeoutSeconds=1&resourceVersion={wRv}` },
  ];
}

function patches(): Step[] {
  const c = 'patch' as const;
  const P = (name: string, contentType: string, body: unknown, target = 'cm-p', extra: Partial<Step> = {}): Step => ({ cat: c, name, method: 'PATCH', path: obj('configmaps', target), contentType, ...(typeof body === 'string' ? { raw: body } : { body }), ...extra });
  return [
    { cat: c, name: 'create cm-p', method: 'POST', path: CMS, body: cm('cm-p', { a: '1', b: '2' }, { labels: { x: '1' } }), capture: { pRv: 'metadata.resourceVersion', pUid: 'metadata.uid' } },
    P('merge patch add key', MERGE, { data: { c: '3' } }),
    P('merge patch remove key (null)', MERGE, { data: { a: null } }),
    P('merge patch labels', MERGE, { metadata: { labels: { y: '2' } } }),
    P('merge patch with matching resourceVersion', MERGE, { metadata: { resourceVersion: '{pRv}' }, data: { d: '4' } }),
    P('merge patch no-op', MERGE, {}),
    P('merge patch invalid JSON', MERGE, '{"data":'),
    P('merge patch makes object invalid', MERGE, { data: { 'bad key': 'x' } }),
    P('merge patch changes name', MERGE, { metadata: { name: 'other' } }),
    P('merge patch changes uid', MERGE, { metadata: { uid: '6f1e3f6e-0000-4000-8000-000000000000' } }),
    P('merge patch sets kind', MERGE, { kind: 'Secret' }),
    P('merge patch array body', MERGE, '[]'),
    P('json patch add', JSONPATCH, [{ op: 'add', path: '/data/e', value: '5' }]),
    P('json patch replace', JSONPATCH, [{ op: 'replace', path: '/data/e', value: '55' }]),
    P('json patch remove', JSONPATCH, [{ op: 'remove', path: '/data/e' }]),
    P('json patch remove missing path', JSONPATCH, [{ op: 'remove', path: '/data/nope' }]),
    P('json patch test ok + replace', JSONPATCH, [{ op: 'test', path: '/data/b', value: '2' }, { op: 'replace', path: '/data/b', value: '22' }]),
    P('json patch test fails', JSONPATCH, [{ op: 'test', path: '/data/b', value: 'wrong' }]),
    P('json patch move', JSONPATCH, [{ op: 'move', from: '/data/b', path: '/data/bb' }]),
    P('json patch copy', JSONPATCH, [{ op: 'copy', from: '/data/bb', path: '/data/bc' }]),
    P('json patch invalid op', JSONPATCH, [{ op: 'frobnicate', path: '/data/x' }]),
    P('json patch not an array', JSONPATCH, { op: 'add' }),
    P('json patch label with ~1 escape', JSONPATCH, [{ op: 'add', path: '/metadata/labels/example.com~1role', value: 'r' }]),
    P('json patch empty array', JSONPATCH, []),
    P('strategic merge patch data', SMP, { data: { f: '6' } }),
    P('strategic merge patch delete key', SMP, { data: { f: null } }),
    P('strategic merge patch $patch: replace on data', SMP, { data: { $patch: 'replace', only: 'this' } }),
    P('strategic merge patch $patch: delete on labels', SMP, { metadata: { labels: { $patch: 'delete' } } }),
    P('strategic merge patch finalizers list', SMP, { metadata: { finalizers: ['example.com/a'] } }),
    P('strategic merge patch $deleteFromPrimitiveList', SMP, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } }),
    P('strategic merge patch $setElementOrder', SMP, { metadata: { '$setElementOrder/finalizers': [] } }),
    P('strategic merge patch unknown directive', SMP, { data: { $patch: 'explode' } }),
    P('strategic merge patch invalid JSON', SMP, 'nope'),
    P('strategic merge patch stale resourceVersion', SMP, { metadata: { resourceVersion: '{pRv}' }, data: { g: '7' } }),
    P('apply patch (server-side apply) without fieldManager', APPLY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-p\ndata:\n  applied: "yes"\n'),
    P('apply patch with fieldManager', APPLY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-p\ndata:\n  applied: "yes"\n', 'cm-p', { path: obj('configmaps', 'cm-p') + '?fieldManager=fidelity' }),
    P('apply patch conflict with other manager', APPLY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-p\ndata:\n  applied: "no"\n', 'cm-p', { path: obj('configmaps', 'cm-p') + '?fieldManager=other' }),
    P('apply patch force', APPLY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-p\ndata:\n  applied: "forced"\n', 'cm-p', { path: obj('configmaps', 'cm-p') + '?fieldManager=other&force=true' }),
    P('apply patch creates missing object', APPLY, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-applied\n  labels:\n    fidelity-run: "{run}"\ndata:\n  k: v\n', 'cm-applied', { path: obj('configmaps', 'cm-applied') + '?fieldManager=fidelity' }),
    P('apply patch invalid yaml', APPLY, ':\n  - [', 'cm-p', { path: obj('configmaps', 'cm-p') + '?fieldManager=fidelity' }),
    P('apply patch force without apply type', MERGE, { data: { z: '1' } }, 'cm-p', { path: obj('configmaps', 'cm-p') + '?force=true' }),
    P('patch with fieldManager', MERGE, { data: { fm: '1' } }, 'cm-p', { path: obj('configmaps', 'cm-p') + '?fieldManager=my-manager' }),
    P('patch with invalid fieldManager', MERGE, { data: { fm: '2' } }, 'cm-p', { path: obj('configmaps', 'cm-p') + `?fieldManager=${'m'.repeat(200)}` }),
    P('patch unsupported content type', 'text/plain', 'x'),
    P('patch with application/json content type', J, '{"data":{"j":"1"}}'),
    P('merge patch missing configmap', MERGE, { data: { a: '1' } }, 'cm-nope'),
    P('json patch missing configmap', JSONPATCH, [{ op: 'add', path: '/data/a', value: '1' }], 'cm-nope'),
    P('merge patch immutable configmap data', MERGE, { data: { k: 'other' } }, 'cm-imm'),
    { cat: c, name: 'merge patch secret stringData', method: 'PATCH', path: obj('secrets', 's-a'), contentType: MERGE, body: { stringData: { added: 'yes' } } },
    { cat: c, name: 'strategic merge patch namespace labels', method: 'PATCH', path: '/api/v1/namespaces/{run}-c', contentType: SMP, body: { metadata: { labels: { patched: 'true' } } } },
    { cat: c, name: 'merge patch namespace status', method: 'PATCH', path: '/api/v1/namespaces/{run}-c/status', contentType: MERGE, body: { status: { conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'Test', message: 'x' }] } } },
    { cat: c, name: 'get cm-p after patches', method: 'GET', path: obj('configmaps', 'cm-p') },
  ];
}

function dryRuns(): Step[] {
  const c = 'dry-run' as const;
  return [
    // Dry-run writes go to an object of their own: a dry run that really writes must not change
    // what later steps read.
    { cat: c, name: 'create cm-dr (for the dry runs)', method: 'POST', path: CMS, body: cm('cm-dr', { t: 'x' }) },
    { cat: c, name: 'dry-run create', method: 'POST', path: `${CMS}?dryRun=All`, body: cm('cm-dry') },
    { cat: c, name: 'get after dry-run create (404)', method: 'GET', path: obj('configmaps', 'cm-dry') },
    { cat: c, name: 'dry-run create generateName', method: 'POST', path: `${CMS}?dryRun=All`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'dry-', labels: LABELS } }, capture: { dryGen: 'metadata.name' } },
    { cat: c, name: 'dry-run create duplicate', method: 'POST', path: `${CMS}?dryRun=All`, body: cm('cm-a') },
    { cat: c, name: 'dry-run create invalid', method: 'POST', path: `${CMS}?dryRun=All`, body: cm('cm-dry', { 'bad key': 'x' }) },
    { cat: c, name: 'dry-run invalid value', method: 'POST', path: `${CMS}?dryRun=Invalid`, body: cm('cm-dry') },
    { cat: c, name: 'dry-run twice', method: 'POST', path: `${CMS}?dryRun=All&dryRun=All`, body: cm('cm-dry') },
    { cat: c, name: 'dry-run update', method: 'PUT', path: obj('configmaps', 'cm-dr') + '?dryRun=All', body: cm('cm-dr', { t: 'changed' }) },
    { cat: c, name: 'get after dry-run update (unchanged)', method: 'GET', path: obj('configmaps', 'cm-dr') },
    { cat: c, name: 'dry-run patch', method: 'PATCH', path: obj('configmaps', 'cm-dr') + '?dryRun=All', contentType: MERGE, body: { data: { t: 'patched' } } },
    { cat: c, name: 'dry-run delete', method: 'DELETE', path: obj('configmaps', 'cm-dr') + '?dryRun=All' },
    { cat: c, name: 'get after dry-run delete (still there)', method: 'GET', path: obj('configmaps', 'cm-dr') },
    { cat: c, name: 'dry-run deletecollection', method: 'DELETE', path: `${CMS}?dryRun=All&labelSelector=extra` },
    { cat: c, name: 'dry-run create secret', method: 'POST', path: `${SECRETS}?dryRun=All`, body: secret('s-dry', { stringData: { a: 'b' } }) },
    { cat: c, name: 'dry-run create namespace', method: 'POST', path: '/api/v1/namespaces?dryRun=All', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '{run}-dry' } } },
    { cat: c, name: 'dry-run delete namespace', method: 'DELETE', path: '/api/v1/namespaces/{run}-c?dryRun=All' },
    { cat: c, name: 'dry-run delete body DeleteOptions', method: 'DELETE', path: obj('configmaps', 'cm-dr'), body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } },
    { cat: c, name: 'get after dry-run delete by body (still there)', method: 'GET', path: obj('configmaps', 'cm-dr') },
    { cat: c, name: 'list after dry-run deletecollection (all still there)', method: 'GET', path: `${CMS}?labelSelector=extra` },
    { cat: c, name: 'get namespace after dry-run delete (still Active)', method: 'GET', path: '/api/v1/namespaces/{run}-c' },
  ];
}

function deletes(): Step[] {
  const c = 'delete' as const;
  const D = (name: string, target: string, query = '', body?: unknown): Step => ({ cat: c, name, method: 'DELETE', path: obj('configmaps', target) + query, body });
  const mk = (name: string, extra: Record<string, unknown> = {}): Step => ({ cat: c, name: `create ${name}`, method: 'POST', path: CMS, body: cm(name, { a: '1' }, extra), capture: { [`${name.replace(/-/g, '_')}_uid`]: 'metadata.uid', [`${name.replace(/-/g, '_')}_rv`]: 'metadata.resourceVersion' } });
  return [
    mk('del-a'),
    D('delete configmap', 'del-a'),
    D('delete configmap again (404)', 'del-a'),
    mk('del-b'),
    D('delete with precondition uid match', 'del-b', '', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: '{del_b_uid}' } }),
    mk('del-c'),
    D('delete with precondition uid mismatch', 'del-c', '', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: '6f1e3f6e-0000-4000-8000-000000000000' } }),
    D('delete with precondition resourceVersion mismatch', 'del-c', '', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } }),
    D('delete with precondition resourceVersion match', 'del-c', '', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '{del_c_rv}' } }),
    mk('del-d'),
    D('delete propagationPolicy=Orphan', 'del-d', '?propagationPolicy=Orphan'),
    mk('del-e'),
    D('delete propagationPolicy=Background', 'del-e', '?propagationPolicy=Background'),
    mk('del-f'),
    D('delete propagationPolicy=Foreground (finalizer added)', 'del-f', '?propagationPolicy=Foreground'),
    // (No GET of del-f afterwards: the garbage collector removes it here, nothing does on the reference.)
    D('delete propagationPolicy invalid', 'del-a', '?propagationPolicy=Sideways'),
    D('delete orphanDependents and propagationPolicy both', 'del-e', '', { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: true, propagationPolicy: 'Background' }),
    mk('del-g'),
    D('delete gracePeriodSeconds=0', 'del-g', '?gracePeriodSeconds=0'),
    mk('del-h'),
    D('delete gracePeriodSeconds=30', 'del-h', '?gracePeriodSeconds=30'),
    D('delete gracePeriodSeconds negative', 'del-h', '?gracePeriodSeconds=-5'),
    D('delete object with finalizer (stays, deletionTimestamp)', 'cm-fin'),
    { cat: c, name: 'get configmap with deletionTimestamp', method: 'GET', path: obj('configmaps', 'cm-fin') },
    D('delete again while finalizing', 'cm-fin'),
    { cat: c, name: 'update while finalizing: add finalizer rejected', method: 'PATCH', path: obj('configmaps', 'cm-fin'), contentType: MERGE, body: { metadata: { finalizers: ['example.com/hold', 'example.com/new'] } } },
    { cat: c, name: 'remove finalizer (object goes away)', method: 'PATCH', path: obj('configmaps', 'cm-fin'), contentType: MERGE, body: { metadata: { finalizers: null } } },
    { cat: c, name: 'get after finalizer removal', method: 'GET', path: obj('configmaps', 'cm-fin') },
    D('delete body with wrong kind', 'del-h', '', { kind: 'ConfigMap', apiVersion: 'v1' }),
    { cat: c, name: 'delete body invalid JSON', method: 'DELETE', path: obj('configmaps', 'del-h'), raw: '{nope', contentType: J },
    { cat: c, name: 'deletecollection by label', method: 'DELETE', path: `${CMS}?labelSelector=w` },
    { cat: c, name: 'deletecollection by field', method: 'DELETE', path: `${CMS}?fieldSelector=metadata.name%3Dcm-nokind` },
    { cat: c, name: 'deletecollection invalid selector', method: 'DELETE', path: `${CMS}?labelSelector=a%20in%20b` },
    { cat: c, name: 'deletecollection secrets by type', method: 'DELETE', path: `${SECRETS}?fieldSelector=type%3Dkubernetes.io/tls` },
    { cat: c, name: 'delete secret', method: 'DELETE', path: obj('secrets', 's-custom') },
    { cat: c, name: 'delete immutable secret', method: 'DELETE', path: obj('secrets', 's-imm') },
    { cat: c, name: 'list after deletes', method: 'GET', path: CMS },
  ];
}

function errors(): Step[] {
  const c = 'errors' as const;
  return [
    { cat: c, name: '400 malformed JSON body', method: 'POST', path: CMS, raw: '{"metadata":', contentType: J },
    { cat: c, name: '400 body is a JSON array', method: 'POST', path: CMS, raw: '[1,2]', contentType: J },
    { cat: c, name: '400 field of wrong type', method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-wrongtype' }, data: { a: 1 } } },
    { cat: c, name: '400 metadata wrong type', method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' } },
    { cat: c, name: '400 apiVersion mismatch', method: 'POST', path: CMS, body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'cm-v2' } } },
    { cat: c, name: '400 empty body', method: 'POST', path: CMS, raw: '', contentType: J },
    { cat: c, name: '400 unknown field (fieldValidation=Strict)', method: 'POST', path: `${CMS}?fieldValidation=Strict`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-strict' }, bogus: 1 } },
    { cat: c, name: 'unknown field warning (fieldValidation=Warn)', method: 'POST', path: `${CMS}?fieldValidation=Warn&dryRun=All`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-warn' }, bogus: 1 } },
    { cat: c, name: '400 duplicate field (Strict)', method: 'POST', path: `${CMS}?fieldValidation=Strict&dryRun=All`, raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-dupf"},"data":{"a":"1"},"data":{"b":"2"}}', contentType: J },
    { cat: c, name: '400 fieldValidation invalid', method: 'POST', path: `${CMS}?fieldValidation=Loud`, body: cm('cm-fv') },
    { cat: c, name: '401 bad bearer token', method: 'GET', path: CMS, identity: 'anonymous', headers: { authorization: 'Bearer not-a-valid-token' } },
    { cat: c, name: 'anonymous list configmaps', method: 'GET', path: CMS, identity: 'anonymous' },
    { cat: c, name: 'anonymous /api', method: 'GET', path: '/api', identity: 'anonymous' },
    { cat: c, name: 'anonymous /version', method: 'GET', path: '/version', identity: 'anonymous' },
    { cat: c, name: 'anonymous /healthz', method: 'GET', path: '/healthz', identity: 'anonymous' },
    { cat: c, name: '403 impersonated user without rights', method: 'GET', path: CMS, headers: { 'Impersonate-User': 'fidelity-nobody' } },
    { cat: c, name: '403 impersonated user create', method: 'POST', path: CMS, body: cm('cm-imp'), headers: { 'Impersonate-User': 'fidelity-nobody' } },
    { cat: c, name: '404 unknown resource', method: 'GET', path: '/api/v1/namespaces/{ns}/widgets' },
    { cat: c, name: '404 unknown resource object', method: 'GET', path: '/api/v1/namespaces/{ns}/widgets/x' },
    { cat: c, name: '404 unknown subresource', method: 'GET', path: obj('configmaps', 'cm-a') + '/status' },
    { cat: c, name: '404 unknown group', method: 'GET', path: '/apis/nope.example.com/v1' },
    { cat: c, name: '404 unknown version', method: 'GET', path: '/api/v2' },
    { cat: c, name: '404 unknown path', method: 'GET', path: '/nope' },
    { cat: c, name: '404 cluster-scoped path for configmap', method: 'GET', path: '/api/v1/configmaps/cm-a' },
    { cat: c, name: '404 missing configmap', method: 'GET', path: obj('configmaps', 'cm-missing') },
    { cat: c, name: '404 update missing secret', method: 'PUT', path: obj('secrets', 's-missing'), body: secret('s-missing') },
    { cat: c, name: '404 delete missing namespace', method: 'DELETE', path: '/api/v1/namespaces/{run}-missing' },
    { cat: c, name: '405 POST on an object path', method: 'POST', path: obj('configmaps', 'cm-a'), body: cm('cm-a') },
    { cat: c, name: '405 PUT on a collection', method: 'PUT', path: CMS, body: cm('cm-a') },
    { cat: c, name: '405 PATCH on a collection', method: 'PATCH', path: CMS, contentType: MERGE, body: {} },
    { cat: c, name: '405 POST on namespace status', method: 'POST', path: '/api/v1/namespaces/{run}-c/status', body: {} },
    { cat: c, name: '406 Accept application/xml', method: 'GET', path: obj('configmaps', 'cm-a'), accept: 'application/xml' },
    { cat: c, name: '406 Accept Table on discovery', method: 'GET', path: '/api/v1', accept: TABLE_V1 },
    { cat: c, name: '406 Accept Table with unknown version', method: 'GET', path: CMS, accept: 'application/json;as=Table;v=v9;g=meta.k8s.io' },
    { cat: c, name: '409 AlreadyExists', method: 'POST', path: CMS, body: cm('cm-bin') },
    { cat: c, name: '409 Conflict on stale update', method: 'PUT', path: obj('configmaps', 'cm-bin'), body: { ...(cm('cm-bin') as object), metadata: { name: 'cm-bin', resourceVersion: '1' } } },
    { cat: c, name: '410 continue token expired or invalid', method: 'GET', path: `${CMS}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0` },
    { cat: c, name: '413 body over 3 MiB', method: 'POST', path: CMS, raw: JSON.stringify(cm('cm-toolarge', { big: 'x'.repeat(3 * 1024 * 1024 + 100) })), contentType: J },
    { cat: c, name: '415 unsupported content type', method: 'POST', path: CMS, raw: 'name: x', contentType: 'text/plain' },
    { cat: c, name: '415 patch with unknown content type', method: 'PATCH', path: obj('configmaps', 'cm-a'), raw: '{}', contentType: 'application/x-unknown' },
    { cat: c, name: '422 invalid object', method: 'POST', path: CMS, body: cm('-bad-') },
    { cat: c, name: '504 resourceVersion too large', method: 'GET', path: obj('configmaps', 'cm-a') + '?resourceVersion=99999999999' },
    { cat: c, name: 'list resourceVersion too large', method: 'GET', path: `${CMS}?resourceVersion=99999999999&resourceVersionMatch=NotOlderThan` },
  ];
}

function negotiation(): Step[] {
  const c = 'negotiation' as const;
  return [
    { cat: c, name: 'get as YAML', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: 'application/yaml' },
    { cat: c, name: 'list as YAML', method: 'GET', path: `${CMS}?labelSelector=extra`, accept: 'application/yaml' },
    { cat: c, name: 'get Accept */*', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: '*/*' },
    { cat: c, name: 'get Accept application/*', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: 'application/*' },
    { cat: c, name: 'get Accept json with q-values', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: 'application/yaml;q=0.5, application/json;q=0.9' },
    { cat: c, name: 'get Accept protobuf', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: PROTOBUF, binary: true },
    { cat: c, name: 'get Accept protobuf,json', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: `${PROTOBUF},${J}`, binary: true },
    { cat: c, name: 'error as YAML', method: 'GET', path: obj('configmaps', 'cm-missing'), accept: 'application/yaml' },
    { cat: c, name: 'error as protobuf', method: 'GET', path: obj('configmaps', 'cm-missing'), accept: PROTOBUF, binary: true },
    { cat: c, name: 'create with YAML body', method: 'POST', path: CMS, raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-yaml\n  labels:\n    fidelity-run: "{run}"\ndata:\n  y: "1"\n', contentType: 'application/yaml' },
    { cat: c, name: 'create with invalid YAML body', method: 'POST', path: CMS, raw: 'a: [', contentType: 'application/yaml' },
    { cat: c, name: 'get with pretty=1', method: 'GET', path: obj('configmaps', 'cm-bin') + '?pretty=1' },
    { cat: c, name: 'get Accept json;charset=utf-8', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: 'application/json;charset=utf-8' },
    { cat: c, name: 'POST content-type json;charset=utf-8', method: 'POST', path: `${CMS}?dryRun=All`, body: cm('cm-charset'), contentType: 'application/json; charset=utf-8' },
    { cat: c, name: 'get as PartialObjectMetadata', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' },
    { cat: c, name: 'list as PartialObjectMetadataList', method: 'GET', path: `${CMS}?labelSelector=extra`, accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
    { cat: c, name: 'get as PartialObjectMetadata v1beta1', method: 'GET', path: obj('configmaps', 'cm-bin'), accept: 'application/json;as=PartialObjectMetadata;v=v1beta1;g=meta.k8s.io' },
  ];
}

function tables(): Step[] {
  const c = 'tables' as const;
  const T = (name: string, path: string, accept = TABLE_V1): Step => ({ cat: c, name, method: 'GET', path, accept });
  return [
    T('configmap list as Table', CMS),
    T('configmap list as Table v1beta1', CMS, TABLE_V1BETA1),
    T('configmap get as Table', obj('configmaps', 'cm-bin')),
    T('configmap list as Table includeObject=None', `${CMS}?includeObject=None`),
    T('configmap list as Table includeObject=Object', `${CMS}?includeObject=Object&labelSelector=extra`),
    T('configmap list as Table includeObject=Metadata', `${CMS}?includeObject=Metadata&labelSelector=extra`),
    T('configmap list as Table includeObject invalid', `${CMS}?includeObject=Everything`),
    T('configmap list as Table limit=1', `${CMS}?limit=1`),
    T('configmap list all namespaces as Table', `/api/v1/configmaps?${SEL}`),
    T('secret list as Table', SECRETS),
    T('secret get as Table', obj('secrets', 's-tls')),
    T('namespace list as Table', `/api/v1/namespaces?${SEL}`),
    T('namespace get as Table', '/api/v1/namespaces/{run}-c'),
    T('Table with json fallback Accept', obj('configmaps', 'cm-bin'), `${TABLE_V1}, application/json`),
    T('Table as protobuf', CMS, 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io'),
    T('Table as YAML', obj('configmaps', 'cm-bin'), 'application/yaml;as=Table;v=v1;g=meta.k8s.io'),
    T('Table for missing object (404 Status)', obj('configmaps', 'cm-missing')),
    T('Table on empty list', '/api/v1/namespaces/{run}-c/configmaps'),
    { cat: c, name: 'Table on create (POST)', method: 'POST', path: `${CMS}?dryRun=All`, body: cm('cm-tbl'), accept: TABLE_V1 },
  ];
}

function discovery(): Step[] {
  const c = 'discovery' as const;
  const entry = (name: string) => (b: any) => (b?.resources ?? []).find((r: any) => r.name === name) ?? null;
  return [
    { cat: c, name: '/api', method: 'GET', path: '/api' },
    { cat: c, name: '/api/', method: 'GET', path: '/api/' },
    { cat: c, name: '/api/v1 (whole document)', method: 'GET', path: '/api/v1' },
    { cat: c, name: '/api/v1 entry configmaps', method: 'GET', path: '/api/v1', project: entry('configmaps') },
    { cat: c, name: '/api/v1 entry secrets', method: 'GET', path: '/api/v1', project: entry('secrets') },
    { cat: c, name: '/api/v1 entry namespaces', method: 'GET', path: '/api/v1', project: entry('namespaces') },
    { cat: c, name: '/api/v1 entry namespaces/status', method: 'GET', path: '/api/v1', project: entry('namespaces/status') },
    { cat: c, name: '/api/v1 entry namespaces/finalize', method: 'GET', path: '/api/v1', project: entry('namespaces/finalize') },
    { cat: c, name: '/api/v1 envelope (kind, groupVersion)', method: 'GET', path: '/api/v1', project: (b) => ({ kind: b?.kind, apiVersion: b?.apiVersion, groupVersion: b?.groupVersion }) },
    { cat: c, name: '/apis (whole document)', method: 'GET', path: '/apis' },
    { cat: c, name: '/apis envelope', method: 'GET', path: '/apis', project: (b) => ({ kind: b?.kind, apiVersion: b?.apiVersion }) },
    { cat: c, name: '/api as protobuf', method: 'GET', path: '/api', accept: PROTOBUF, binary: true },
    { cat: c, name: '/api/v1 as YAML', method: 'GET', path: '/api/v1', accept: 'application/yaml', binary: true },
    { cat: c, name: '/ (root paths)', method: 'GET', path: '/' },
    { cat: c, name: '/openapi/v2 status', method: 'GET', path: '/openapi/v2', binary: true },
    { cat: c, name: '/openapi/v3 status', method: 'GET', path: '/openapi/v3', binary: true },
  ];
}

function health(): Step[] {
  const c = 'health' as const;
  const H = (path: string): Step => ({ cat: c, name: path, method: 'GET', path, accept: '*/*' });
  return [H('/healthz'), H('/livez'), H('/readyz'), H('/healthz?verbose'), H('/livez?verbose'), H('/readyz?verbose'), H('/livez/ping'), H('/readyz/ping'), H('/healthz/ping'), H('/livez/etcd'), H('/readyz/nonexistent'), H('/readyz?exclude=etcd'), H('/livez?verbose&exclude=ping')];
}

function version(): Step[] {
  const c = 'version' as const;
  return [
    { cat: c, name: '/version', method: 'GET', path: '/version' },
    { cat: c, name: '/version fields', method: 'GET', path: '/version', project: (b) => ({ major: b?.major, minor: b?.minor, gitVersion: b?.gitVersion }) },
    { cat: c, name: '/version/', method: 'GET', path: '/version/' },
    { cat: c, name: 'POST /version', method: 'POST', path: '/version', body: {} },
  ];
}

/** Set-up steps (namespaces the corpus works in); answers are compared like any other step. */
function setup(): Step[] {
  const ns = (name: string): unknown => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: LABELS } });
  return [
    { cat: 'namespaces', name: 'create namespace (main)', method: 'POST', path: '/api/v1/namespaces', body: ns('{ns}') },
    { cat: 'namespaces', name: 'create namespace (second)', method: 'POST', path: '/api/v1/namespaces', body: ns('{ns2}') },
  ];
}

/** The whole corpus, in execution order. */
export function corpus(): Step[] {
  const steps = [...setup(), ...configmaps(), ...secrets(), ...namespaces(), ...lists(), ...watches(), ...patches(), ...dryRuns(), ...negotiation(), ...tables(), ...deletes(), ...errors(), ...discovery(), ...health(), ...version()];
  const seen = new Set<string>();
  for (const s of steps) {
    const key = `${s.cat}/${s.name}`;
    if (seen.has(key)) throw new Error(`fidelity corpus: duplicate step name ${key}`);
    seen.add(key);
  }
  return steps;
}
