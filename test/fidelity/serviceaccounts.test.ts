/**
 * ServiceAccounts and the ServiceAccount admission plugin as kube-apiserver 1.24 answers them:
 * CRUD (secret references cleaned to their names, delete returning the object), managedFields,
 * the Table, 422/400 bodies, discovery, Protobuf; and Pods admitted with the `default` account and
 * its projected `kube-api-access-*` volume (compared with the Pod the reference stores), the 403s
 * for a missing account and for secrets an enforcing account does not list. Runs on this server
 * and, with TEST_KUBECONFIG, on the reference.
 *
 * The reference has no controller-manager: the suite creates `default` there itself (on this
 * server the serviceaccounts controller does). What the controllers do on this server alone
 * (default account and kube-root-ca.crt in every namespace) is test/namespace-defaults.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { startTarget, normalize, readKubeconfig, type Target } from '../target.ts';
import { decodeProtobuf, encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';

let t: Target;
let ns: string;
let SA: string;
let P: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('sa');
  SA = `/api/v1/namespaces/${ns}/serviceaccounts`;
  P = `/api/v1/namespaces/${ns}/pods`;
  if (t.reference) {
    const r = await post(SA, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    if (r.status !== 201) throw new Error(`default service account: ${show(r)}`);
  }
});
test.after(async () => {
  // The reference has no namespace controller: empty the namespace before leaving it Terminating.
  if (t.reference) {
    await t.client.request('DELETE', `${P}?gracePeriodSeconds=0`);
    await t.client.request('DELETE', SA);
  }
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const post = (path: string, b: unknown) => t.client.request('POST', path, { body: b });
const sa = (name: string, fields: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, ...metadata }, ...fields });

/** The body normalized (uids, times, versions, the run's namespace), managedFields kept unless `drop`. */
function body(r: HttpResult, drop = true): any {
  const j = structuredClone(r.json);
  if (drop && j?.metadata?.managedFields) delete j.metadata.managedFields;
  return normalize(j, { [ns]: 'NS' });
}

const META = { namespace: 'NS', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' };

test('create: secrets keep only their names; imagePullSecrets and automount as sent; managedFields of the request', async () => {
  const r = await post(
    SA,
    sa('build', {
      secrets: [{ kind: 'Secret', namespace: 'elsewhere', name: 'a', uid: 'x', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'f' }],
      imagePullSecrets: [{ name: 'reg' }],
      automountServiceAccountToken: false,
    }),
  );
  assert.is(r.status, 201, show(r));
  assert.is(
    JSON.stringify(body(r, false)),
    JSON.stringify({
      kind: 'ServiceAccount',
      apiVersion: 'v1',
      metadata: {
        name: 'build',
        ...META,
        managedFields: [
          {
            manager: (r.json as any).metadata.managedFields[0].manager,
            operation: 'Update',
            apiVersion: 'v1',
            time: '<time>',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:automountServiceAccountToken': {}, 'f:imagePullSecrets': {}, 'f:secrets': { '.': {}, 'k:{"name":"a"}': {} } },
          },
        ],
      },
      secrets: [{ name: 'a' }],
      imagePullSecrets: [{ name: 'reg' }],
      automountServiceAccountToken: false,
    }),
  );
  const g = await t.client.request('GET', `${SA}/build`);
  assert.is(g.status, 200, show(g));
  assert.equal(g.json, r.json);
});

test('a secret reference without a name: stored as {}, and no managedFields (the list map key is missing)', async () => {
  const r = await post(SA, sa('nameless', { secrets: [{ kind: 'Secret' }], imagePullSecrets: [{}] }));
  assert.is(r.status, 201, show(r));
  assert.is(JSON.stringify(body(r, false)), JSON.stringify({ kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'nameless', ...META }, secrets: [{}], imagePullSecrets: [{}] }));
});

test('update and patch clean secret references too; delete answers the object', async () => {
  const c = await post(SA, sa('upd'));
  assert.is(c.status, 201, show(c));
  const u = await t.client.request('PUT', `${SA}/upd`, { body: { ...(c.json as any), secrets: [{ name: 's1', namespace: 'x' }], automountServiceAccountToken: true } });
  assert.is(u.status, 200, show(u));
  assert.equal(body(u).secrets, [{ name: 's1' }]);
  assert.is(body(u).automountServiceAccountToken, true);
  const p = await t.client.request('PATCH', `${SA}/upd`, {
    body: { secrets: [{ name: 's2', kind: 'Secret' }, { name: 's1', uid: 'u' }] },
    contentType: 'application/merge-patch+json',
  });
  assert.is(p.status, 200, show(p));
  assert.equal(body(p).secrets, [{ name: 's2' }, { name: 's1' }]);
  const d = await t.client.request('DELETE', `${SA}/upd`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'ServiceAccount');
  assert.equal(body(d), body(p));
  const gone = await t.client.request('GET', `${SA}/upd`);
  assert.is(gone.status, 404, show(gone));
  assert.is((gone.json as any).message, 'serviceaccounts "upd" not found');
});

test('create: 422 (names, labels) and 400 (types) bodies', async () => {
  const cases: [string, unknown, number, string][] = [
    [
      'bad name',
      sa('Bad_Name'),
      422,
      `ServiceAccount "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
    ['no name', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: {} }, 422, 'ServiceAccount "" is invalid: metadata.name: Required value: name or generateName is required'],
    [
      'bad label',
      sa('x', {}, { labels: { 'a/b/c': 'x' } }),
      422,
      `ServiceAccount "x" is invalid: metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    [
      'secrets not a list',
      sa('x', { secrets: 'x' }),
      400,
      'ServiceAccount in version "v1" cannot be handled as a ServiceAccount: json: cannot unmarshal string into Go struct field ServiceAccount.secrets of type []v1.ObjectReference',
    ],
    [
      'automount not a bool',
      sa('x', { automountServiceAccountToken: 'yes' }),
      400,
      'ServiceAccount in version "v1" cannot be handled as a ServiceAccount: json: cannot unmarshal string into Go struct field ServiceAccount.automountServiceAccountToken of type bool',
    ],
  ];
  for (const [label, b, code, message] of cases) {
    const r = await post(SA, b);
    assert.is(r.status, code, `${label}: ${show(r)}`);
    assert.is((r.json as any).message, message, label);
  }
});

test('table: NAME SECRETS AGE', async () => {
  const r = await t.client.request('GET', `${SA}/build`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(r.status, 200, show(r));
  const j = r.json as any;
  assert.equal(
    j.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Secrets', 'string', '', 0],
      ['Age', 'string', '', 0],
    ],
  );
  assert.is(
    j.columnDefinitions[1].description,
    'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
  );
  assert.equal(j.rows[0].cells.slice(0, 2), ['build', 1]);
  assert.match(j.rows[0].cells[2], /^\d+s$/);
});

test('discovery: serviceaccounts as the reference lists it', async () => {
  const r = await t.client.request('GET', '/api/v1');
  const e = (r.json as any).resources.find((x: any) => x.name === 'serviceaccounts');
  assert.equal(e, {
    name: 'serviceaccounts',
    singularName: '',
    namespaced: true,
    kind: 'ServiceAccount',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['sa'],
    storageVersionHash: 'pbx9ZvyFpBE=',
  });
});

/** GET a path as Protobuf bytes (the suite's client reads bodies as text). */
async function getProtobuf(path: string): Promise<Buffer> {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const headers: Record<string, string> = { accept: PROTOBUF };
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    const r = await undiciRequest(k.server + path, { headers, dispatcher: agent });
    assert.is(r.statusCode, 200, path);
    return Buffer.from(await r.body.arrayBuffer());
  } finally {
    await agent.close();
  }
}

test('Protobuf: ServiceAccount(List) bytes decode to the served JSON and re-encode byte for byte', async () => {
  for (const path of [`${SA}/build`, `${SA}/nameless`]) {
    const json = (await t.client.request('GET', path)).json;
    const bytes = await getProtobuf(path);
    assert.equal(decodeProtobuf(bytes).object, json, `${path}: protobuf decodes to the JSON`);
    assert.ok(encodeProtobuf(json).equals(bytes), `${path}: JSON re-encodes to the same bytes`);
  }
  const list = decodeProtobuf(await getProtobuf(SA)).object as any;
  assert.is(list.kind, 'ServiceAccountList');
  assert.ok(list.items.some((x: any) => x.metadata.name === 'build'));
});

// ------------------------------------------------------------------------------------ admission

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec },
});

/** The token volume's random suffix, made comparable. */
function withoutSuffix(j: any): any {
  return JSON.parse(JSON.stringify(j).replace(/kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}/g, 'kube-api-access-XXXXX'));
}

const TOKEN_MOUNT = { name: 'kube-api-access-XXXXX', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
const TOKEN_VOLUME = {
  name: 'kube-api-access-XXXXX',
  projected: {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 420,
  },
};
const CONTAINER_DEFAULTS = { resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' };

test('pod admitted with the default account: the stored Pod, byte for byte (volume suffix aside)', async () => {
  const r = await post(
    P,
    pod('a', {
      initContainers: [{ name: 'i', image: 'busybox:1' }],
      containers: [
        { name: 'c', image: 'nginx:1.25' },
        { name: 'd', image: 'nginx:1.25', volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] },
      ],
      volumes: [{ name: 'own', emptyDir: {} }],
    }),
  );
  assert.is(r.status, 201, show(r));
  const name = (r.json as any).spec.volumes[1].name as string;
  assert.match(name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.is(
    JSON.stringify(withoutSuffix(body(r))),
    JSON.stringify({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'a', ...META },
      spec: {
        volumes: [{ name: 'own', emptyDir: {} }, TOKEN_VOLUME],
        initContainers: [{ name: 'i', image: 'busybox:1', ...CONTAINER_DEFAULTS, volumeMounts: [TOKEN_MOUNT] }].map(({ volumeMounts, ...c }) => ({
          name: c.name,
          image: c.image,
          resources: {},
          volumeMounts,
          terminationMessagePath: c.terminationMessagePath,
          terminationMessagePolicy: c.terminationMessagePolicy,
          imagePullPolicy: c.imagePullPolicy,
        })),
        containers: [
          { name: 'c', image: 'nginx:1.25', resources: {}, volumeMounts: [TOKEN_MOUNT], terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' },
          {
            name: 'd',
            image: 'nginx:1.25',
            resources: {},
            volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'IfNotPresent',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        serviceAccountName: 'default',
        serviceAccount: 'default',
        securityContext: {},
        schedulerName: 'default-scheduler',
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
        priority: 0,
        enableServiceLinks: true,
        preemptionPolicy: 'PreemptLowerPriority',
      },
      status: { phase: 'Pending', qosClass: 'BestEffort' },
    }),
  );
  // managedFields are the request's (computed before admission): the plugin's additions are no one's.
  const mf = JSON.stringify((r.json as any).metadata.managedFields);
  assert.not.ok(mf.includes('kube-api-access') || mf.includes('serviceAccount'), mf);
  assert.ok(mf.includes('"k:{\\"name\\":\\"own\\"}"'), mf);
  // Two pods get two different volume names (random, as kube's).
  const r2 = await post(P, pod('a2'));
  assert.is(r2.status, 201, show(r2));
  const v2 = (r2.json as any).spec.volumes.map((v: any) => v.name);
  assert.is(v2.length, 1);
  assert.is.not(v2[0], name);
});

test('automount: the account says no, the pod says yes; imagePullSecrets come from the account', async () => {
  const s = await post(SA, sa('quiet', { automountServiceAccountToken: false, imagePullSecrets: [{ name: 'reg' }] }));
  assert.is(s.status, 201, show(s));
  const q = await post(P, pod('quiet', { serviceAccountName: 'quiet' }));
  assert.is(q.status, 201, show(q));
  const qs = body(q).spec;
  assert.is(qs.volumes, undefined);
  assert.is(qs.containers[0].volumeMounts, undefined);
  assert.equal(qs.imagePullSecrets, [{ name: 'reg' }]);
  // The deprecated field names the account too; the pod's own choice wins over the account's.
  const y = await post(P, pod('loud', { serviceAccount: 'quiet', automountServiceAccountToken: true, imagePullSecrets: [{ name: 'mine' }] }));
  assert.is(y.status, 201, show(y));
  const ys = withoutSuffix(body(y).spec);
  assert.equal(ys.volumes, [TOKEN_VOLUME]);
  assert.equal(ys.imagePullSecrets, [{ name: 'mine' }]);
  assert.is(ys.serviceAccountName, 'quiet');
  assert.is(ys.serviceAccount, 'quiet');
  // An existing kube-api-access-* volume is reused by name, and no second one is added.
  const z = await post(P, pod('reuse', { volumes: [{ name: 'kube-api-access-mine', emptyDir: {} }] }));
  assert.is(z.status, 201, show(z));
  const zs = body(z).spec;
  assert.equal(zs.volumes, [{ name: 'kube-api-access-mine', emptyDir: {} }]);
  assert.equal(zs.containers[0].volumeMounts, [{ ...TOKEN_MOUNT, name: 'kube-api-access-mine' }]);
});

const forbidden = (name: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `pods "${name}" is forbidden: ${message}`,
  reason: 'Forbidden',
  details: { name, kind: 'pods' },
  code: 403,
});

test('missing account: 403 naming it (pod name, generateName, or Unknown)', async () => {
  const cases: [unknown, string, string][] = [
    [pod('m1', { serviceAccountName: 'nope' }), 'm1', `error looking up service account NS/nope: serviceaccount "nope" not found`],
    [pod('', { serviceAccountName: 'nope' }, { name: undefined, generateName: 'gen-' }), 'gen-', `error looking up service account NS/nope: serviceaccount "nope" not found`],
    [pod('', { serviceAccount: 'nope2' }, { name: undefined }), 'Unknown', `error looking up service account NS/nope2: serviceaccount "nope2" not found`],
  ];
  for (const [b, name, message] of cases) {
    const r = await post(P, b);
    assert.is(r.status, 403, show(r));
    assert.equal(body(r), forbidden(name, message));
  }
});

test('kubernetes.io/enforce-mountable-secrets: secrets the account does not list are refused', async () => {
  const s = await post(SA, sa('strict', { secrets: [{ name: 'ok' }], imagePullSecrets: [{ name: 'pull' }] }, { annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }));
  assert.is(s.status, 201, show(s));
  const cases: [string, Record<string, unknown>, string][] = [
    ['vol', { volumes: [{ name: 'v', secret: { secretName: 'other' } }] }, 'volume with secret.secretName="other" is not allowed because service account strict does not reference that secret'],
    [
      'env',
      { containers: [{ name: 'c', image: 'nginx:1.25', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] },
      'container c with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    ],
    ['pull', { imagePullSecrets: [{ name: 'ok' }] }, 'imagePullSecrets[0].name="ok" is not allowed because service account strict does not reference that imagePullSecret'],
  ];
  for (const [name, spec, message] of cases) {
    const r = await post(P, pod(name, { serviceAccountName: 'strict', ...spec }));
    assert.is(r.status, 403, show(r));
    assert.equal(body(r), forbidden(name, message));
  }
  const good = await post(P, pod('fine', { serviceAccountName: 'strict', volumes: [{ name: 'v', secret: { secretName: 'ok' } }] }));
  assert.is(good.status, 201, show(good));
  // Without imagePullSecrets of its own the pod gets the account's, which are allowed.
  assert.equal(body(good).spec.imagePullSecrets, [{ name: 'pull' }]);
});

test('pods/ephemeralcontainers: an enforcing account limits ephemeral containers env (a reason-less 500)', async () => {
  const c = await post(P, pod('eph', { serviceAccountName: 'strict' }));
  assert.is(c.status, 201, show(c));
  const next = structuredClone(c.json as any);
  next.spec.ephemeralContainers = [{ name: 'e', image: 'busybox:1', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }];
  const r = await t.client.request('PUT', `${P}/eph/ephemeralcontainers`, { body: next });
  assert.is(r.status, 500, show(r));
  assert.equal(body(r), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'ephemeral container e with envVar X referencing secret.secretName="s" is not allowed because service account strict does not reference that secret',
    code: 500,
  });
});

test('update: the plugin mutates nothing, and the pod spec rules keep the account fixed', async () => {
  const g = await t.client.request('GET', `${P}/quiet`);
  const next = structuredClone(g.json as any);
  next.spec.serviceAccountName = 'default';
  next.spec.serviceAccount = 'default';
  const r = await t.client.request('PUT', `${P}/quiet`, { body: next });
  assert.is(r.status, 422, show(r));
  assert.match((r.json as any).message, /^Pod "quiet" is invalid: spec: Forbidden: pod updates may not change fields other than/);
  const l = await t.client.request('PUT', `${P}/quiet`, { body: { ...(g.json as any), metadata: { ...(g.json as any).metadata, labels: { a: 'b' } } } });
  assert.is(l.status, 200, show(l));
  assert.equal(body(l).spec, body(g).spec);
});

test.run();
