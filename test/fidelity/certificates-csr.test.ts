/**
 * CertificateSigningRequest (certificates.k8s.io/v1) as kube-apiserver 1.24 serves it: the
 * requester's identity written into the spec, status emptied on create, validation Status bodies
 * (request PEM and signature, usages, signerName, expirationSeconds, conditions, certificate),
 * /approval and /status rules (conditions kept, timestamps filled, a certificate set once), the
 * admission plugins CertificateApproval, CertificateSigning (RBAC `approve`/`sign` on `signers`,
 * by name or `<domain>/*`) and CertificateSubjectRestriction, the Table, the spec.signerName field
 * selector, Protobuf, and `kubectl certificate approve`.
 *
 *   node --import tsx test/run.ts test/fidelity/certificates-csr.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/certificates-csr.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webcrypto } from 'node:crypto';
import { show } from '../assertions.ts';
import { x509, createCertificateAuthority, issueCertificate } from '../../internal/auth/certificates.ts';
import { kubectlFor } from '../kubectl-run.ts';
import { body, checkAccess, clusterSuite, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const GROUP = 'certificates.k8s.io';
const C = `/apis/${GROUP}/v1/certificatesigningrequests`;
const SIGNER = 'example.com/signer';
const S = clusterSuite(test, C, ['a', 'imp', 'appr', 'st', 'rbac', 'kctl', 'w']);

const crypto = webcrypto as unknown as Crypto;
/** A PEM PKCS#10 request for `name` (e.g. 'CN=alice, O=dev'), ECDSA P-256 or RSA. */
async function csrPem(name: string, rsa = false): Promise<string> {
  const alg = rsa ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 } : { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const req = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: alg });
  return req.toString('pem');
}
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

let REQ = '';
const csr = (name: string, spec: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: REQ, signerName: SIGNER, usages: ['digital signature', 'client auth'], ...spec },
  ...rest,
});
/** Impersonation headers: a user, at most one group, extra values. */
const as = (user: string, group?: string, extra: Record<string, string> = {}): Record<string, string> => ({
  'Impersonate-User': user,
  ...(group ? { 'Impersonate-Group': group } : {}),
  ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [`Impersonate-Extra-${k}`, v])),
});

test.before(async () => {
  REQ = b64(await csrPem('CN=alice, O=dev'));
});

test('create: the requester fills username/groups/extra, status is emptied', async () => {
  const r = await S.t.client.request('POST', C, {
    body: csr(S.n('imp'), { username: 'mallory', groups: ['evil'], uid: 'u', extra: { x: ['y'] }, expirationSeconds: 3600 }, { status: { conditions: [{ type: 'Approved', status: 'True' }] } }),
    headers: as('alice', 'system:masters', { team: 'blue' }),
  });
  assert.is(r.status, 201, show(r));
  same(
    body(r, S.names),
    {
      kind: 'CertificateSigningRequest',
      apiVersion: `${GROUP}/v1`,
      metadata: { name: 'wtst-imp', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
      spec: { request: REQ, signerName: SIGNER, expirationSeconds: 3600, usages: ['digital signature', 'client auth'], username: 'alice', groups: ['system:masters', 'system:authenticated'], extra: { team: ['blue'] } },
      status: {},
    },
    'created',
    r,
  );
  const rsa = await S.post(csr(S.n('a'), { request: b64(await csrPem('CN=bob', true)), usages: ['server auth'] }));
  assert.is(rsa.status, 201, show(rsa));
});

test('create: rejections with kube messages', async () => {
  const notPem = b64('hello');
  const der = Buffer.from(Buffer.from(REQ, 'base64').toString().replace(/-----[^\n]+-----\n?/g, ''), 'base64');
  der[der.length - 5] ^= 0xff;
  const tampered = b64(`-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`);
  const goBytes = (s: string) => `[]byte{${[...Buffer.from(s, 'base64')].map((x) => `0x${x.toString(16)}`).join(', ')}}`;
  const cases: [Record<string, unknown>, Cause[]][] = [
    [{ request: notPem, usages: [], signerName: '' }, [
      ['FieldValueInvalid', 'spec.request', `Invalid value: ${goBytes(notPem)}: PEM block type must be CERTIFICATE REQUEST`],
      ['FieldValueRequired', 'spec.usages', 'Required value: usages must be provided'],
      ['FieldValueRequired', 'spec.signerName', 'Required value: signerName must be provided'],
    ]],
    [{ request: tampered }, [['FieldValueInvalid', 'spec.request', `Invalid value: ${goBytes(tampered)}: x509: ECDSA verification failure`]]],
    [{ usages: ['client auth', 'flying', 'client auth'], signerName: 'kubernetes.io/legacy-unknown', expirationSeconds: 599 }, [
      ['FieldValueNotSupported', 'spec.usages[1]', 'Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"'],
      ['FieldValueDuplicate', 'spec.usages[2]', 'Duplicate value: "client auth"'],
      ['FieldValueInvalid', 'spec.signerName', 'Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version'],
      ['FieldValueInvalid', 'spec.expirationSeconds', 'Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)'],
    ]],
    [{ signerName: 'nodomain' }, [['FieldValueInvalid', 'spec.signerName', `Invalid value: "nodomain": must be a fully qualified domain and path of the form 'example.com/signer-name'`]]],
    [{ signerName: 'Example/a..b' }, [
      ['FieldValueInvalid', 'spec.signerName', `Invalid value: "Example": validating label "Example": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`],
      ['FieldValueInvalid', 'spec.signerName', 'Invalid value: "Example": should be a domain with at least two segments separated by dots'],
      ['FieldValueInvalid', 'spec.signerName', `Invalid value: "a..b": validating label "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
    ]],
  ];
  for (const [spec, causes] of cases) {
    const r = await S.post(csr(S.n('bad'), spec));
    same(body(r, S.names), invalidStatus('CertificateSigningRequest', 'wtst-bad', causes, GROUP), JSON.stringify(spec), r);
  }
});

test('CertificateSubjectRestriction: no system:masters for kube-apiserver-client', async () => {
  const r = await S.post(csr(S.n('bad'), { request: b64(await csrPem('CN=root, O=system:masters')), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] }));
  assert.is(r.status, 403, show(r));
  assert.is((r.json as any).message, `certificatesigningrequests.certificates.k8s.io "${S.n('bad')}" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`);
});

test('update, /approval, /status: what each may change, timestamps, the certificate once', async () => {
  const c = await S.post(csr(S.n('appr')));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  // A main-resource update keeps spec and status.
  const u = await S.t.client.request('PUT', `${C}/${S.n('appr')}`, { body: { ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } }, spec: { ...cur.spec, usages: ['any'] }, status: { conditions: [{ type: 'Approved', status: 'True' }] } } });
  assert.is(u.status, 200, show(u));
  assert.equal([(u.json as any).spec.usages, (u.json as any).status, (u.json as any).metadata.labels], [['digital signature', 'client auth'], {}, { a: 'b' }]);
  // /status may not add Approved.
  const sa = await S.t.client.request('PUT', `${C}/${S.n('appr')}/status`, { body: { ...(u.json as any), status: { conditions: [{ type: 'Approved', status: 'True' }] } } });
  same(body(sa, S.names), invalidStatus('CertificateSigningRequest', 'wtst-appr', [['FieldValueForbidden', 'status.conditions', 'Forbidden: updates may not add a condition of type "Approved"']], GROUP), 'status adds Approved', sa);
  // /approval: bad condition values.
  const bad = await S.t.client.request('PUT', `${C}/${S.n('appr')}/approval`, { body: { ...(u.json as any), status: { conditions: [{ type: 'Approved', status: 'False' }, { type: 'Denied', status: 'True' }, { type: '', status: 'Maybe' }, { type: 'Custom' }, { type: 'Custom', status: 'Unknown' }] } } });
  same(
    body(bad, S.names),
    invalidStatus('CertificateSigningRequest', 'wtst-appr', [
      ['FieldValueNotSupported', 'status.conditions[0].status', 'Unsupported value: "False": supported values: "True"'],
      ['FieldValueInvalid', 'status.conditions[1].type', 'Invalid value: "Denied": Approved and Denied conditions are mutually exclusive'],
      ['FieldValueRequired', 'status.conditions[2].type', 'Required value'],
      ['FieldValueNotSupported', 'status.conditions[2].status', 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"'],
      ['FieldValueRequired', 'status.conditions[3].status', 'Required value'],
      ['FieldValueDuplicate', 'status.conditions[4].type', 'Duplicate value: "Custom"'],
    ], GROUP),
    'approval invalid',
    bad,
  );
  const ok = await S.t.client.request('PUT', `${C}/${S.n('appr')}/approval`, { body: { ...(u.json as any), spec: { ...cur.spec, usages: ['any'] }, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R', message: 'M' }], certificate: b64('x') } } });
  assert.is(ok.status, 200, show(ok));
  const okc = (ok.json as any).status.conditions;
  assert.equal([(ok.json as any).spec.usages, (ok.json as any).status.certificate, okc.length, okc[0].reason], [['digital signature', 'client auth'], undefined, 1, 'R'], show(ok));
  assert.match(okc[0].lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.is(okc[0].lastTransitionTime, okc[0].lastUpdateTime);
  // Approval may not remove Approved.
  const rm = await S.t.client.request('PUT', `${C}/${S.n('appr')}/approval`, { body: { ...(ok.json as any), status: { conditions: [] } } });
  same(body(rm, S.names), invalidStatus('CertificateSigningRequest', 'wtst-appr', [['FieldValueForbidden', 'status.conditions', 'Forbidden: updates may not remove a condition of type "Approved"']], GROUP), 'approval removes Approved', rm);
  // /status: garbage certificate, then a real one, then a different one.
  const garbage = await S.t.client.request('PUT', `${C}/${S.n('appr')}/status`, { body: { ...(ok.json as any), status: { ...(ok.json as any).status, certificate: b64('not a cert') } } });
  same(body(garbage, S.names), invalidStatus('CertificateSigningRequest', 'wtst-appr', [['FieldValueInvalid', 'status.certificate', 'Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']], GROUP), 'garbage certificate', garbage);
  const ca = await createCertificateAuthority('csr-test-ca');
  const leaf = await issueCertificate(ca, { cn: 'alice' });
  const issued = await S.t.client.request('PUT', `${C}/${S.n('appr')}/status`, { body: { ...(ok.json as any), status: { ...(ok.json as any).status, certificate: b64(leaf.certPem), conditions: [...okc, { type: 'Failed', status: 'True' }] } } });
  assert.is(issued.status, 200, show(issued));
  const ic = (issued.json as any).status.conditions;
  assert.equal([ic.length, ic[0], ic[1].type], [2, okc[0], 'Failed'], show(issued));
  assert.ok(ic[1].lastUpdateTime && ic[1].lastTransitionTime, show(issued));
  const again = await S.t.client.request('PUT', `${C}/${S.n('appr')}/status`, { body: { ...(issued.json as any), status: { ...(issued.json as any).status, certificate: b64(ca.certPem) } } });
  same(body(again, S.names), invalidStatus('CertificateSigningRequest', 'wtst-appr', [['FieldValueForbidden', 'status.certificate', 'Forbidden: updates may not modify existing certificate content']], GROUP), 'certificate replaced', again);
  const tb = await table(S.t, `${C}?fieldSelector=metadata.name%3D${S.n('appr')}`);
  assert.equal(tb.rows, [[S.n('appr'), SIGNER, (cur.spec as any).username, '<none>', 'Approved,Failed,Issued']]);
});

/** Retry `f` until it answers `status` (RBAC changes reach the authorizer shortly after the write). */
async function eventually(f: () => Promise<{ status: number }>, status: number): Promise<any> {
  let r = await f();
  for (let i = 0; i < 50 && r.status !== status; i++) {
    await new Promise((res) => setTimeout(res, 100));
    r = await f();
  }
  return r;
}

test('CertificateApproval and CertificateSigning: approve/sign on signers, by name or domain wildcard', async () => {
  const role = S.n('rbac');
  const rules = [{ apiGroups: [GROUP], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['get', 'update', 'patch'] }];
  const cr = (extra: unknown[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: [...rules, ...extra] });
  assert.is((await S.t.client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: cr([]) })).status, 201);
  const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: role }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }] };
  assert.is((await S.t.client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: binding })).status, 201);
  try {
    const c = await S.post(csr(S.n('st')));
    assert.is(c.status, 201, show(c));
    const obj = c.json as any;
    // No resourceVersion: updates are unconditional, and bob's writes add his managedFields.
    delete obj.metadata.resourceVersion;
    const approve = () => S.t.client.request('PUT', `${C}/${S.n('st')}/approval`, { body: { ...obj, status: { conditions: [{ type: 'Approved', status: 'True' }] } }, headers: as('bob') });
    const denied = await eventually(approve, 403);
    assert.is(denied.status, 403, show(denied));
    assert.is(denied.json.message, `certificatesigningrequests.certificates.k8s.io "${S.n('st')}" is forbidden: user not permitted to approve requests with signerName "${SIGNER}"`);
    // Adds Failed to the conditions as stored.
    const sign = async () => {
      const now = (await S.t.client.request('GET', `${C}/${S.n('st')}`)).json as any;
      return S.t.client.request('PUT', `${C}/${S.n('st')}/status`, { body: { ...obj, status: { conditions: [...(now.status.conditions ?? []), { type: 'Failed', status: 'True' }] } }, headers: as('bob') });
    };
    const unsigned = await sign();
    assert.is(unsigned.status, 403, show(unsigned));
    assert.is(unsigned.json.message, `certificatesigningrequests.certificates.k8s.io "${S.n('st')}" is forbidden: user not permitted to sign requests with signerName "${SIGNER}"`);
    // A status write that changes neither conditions nor certificate needs no `sign`.
    const noop = await S.t.client.request('PUT', `${C}/${S.n('st')}/status`, { body: obj, headers: as('bob') });
    assert.is(noop.status, 200, show(noop));
    const grant = cr([{ apiGroups: [GROUP], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }, { apiGroups: [GROUP], resources: ['signers'], resourceNames: [SIGNER], verbs: ['sign'] }]);
    const cur = await S.t.client.request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
    assert.is((await S.t.client.request('PUT', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`, { body: { ...grant, metadata: (cur.json as any).metadata } })).status, 200);
    const approved = await eventually(approve, 200);
    assert.is(approved.status, 200, show(approved));
    const signed = await eventually(sign, 200);
    assert.is(signed.status, 200, show(signed));
  } finally {
    await S.t.client.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${role}`);
    await S.t.client.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
  }
});

test('Table columns, spec.signerName field selector, Protobuf, delete (a Status)', async () => {
  const c = await S.post(csr(S.n('w'), { signerName: 'example.com/other', expirationSeconds: 7200 }));
  assert.is(c.status, 201, show(c));
  const tb = await table(S.t, `${C}?fieldSelector=spec.signerName%3Dexample.com%2Fother`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Age', 'string', '', 0],
    ['SignerName', 'string', '', 0],
    ['Requestor', 'string', '', 0],
    ['RequestedDuration', 'string', '', 0],
    ['Condition', 'string', '', 0],
  ]);
  assert.ok(tb.descriptions[2]!.startsWith('Requested signer for the request.'), tb.descriptions[2]);
  assert.equal(tb.descriptions.slice(3), ['Base64-encoded PKCS#10 CSR data', tb.descriptions[4], 'Conditions applied to the request, such as approval or denial.']);
  assert.ok(tb.descriptions[4]!.startsWith('expirationSeconds is the requested duration'), tb.descriptions[4]);
  assert.equal(tb.rows, [[S.n('w'), 'example.com/other', (c.json as any).spec.username, '120m', 'Pending']]);
  const bad = await S.t.client.request('GET', `${C}?fieldSelector=spec.usages%3Dx`);
  assert.is(bad.status, 400, show(bad));
  assert.is((bad.json as any).message, 'field label not supported: spec.usages');
  const ns = await S.t.client.request('GET', `${C}?fieldSelector=metadata.namespace%3Ddefault`);
  assert.is((ns.json as any).message, 'field label not supported: metadata.namespace', show(ns));
  await protobufRoundTrip(S.t, `${C}/${S.n('w')}`);
  const d = await S.t.client.request('DELETE', `${C}/${S.n('w')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
});

test('kubectl certificate approve, get csr', async () => {
  const c = await S.post(csr(S.n('kctl'), { expirationSeconds: 86400 }));
  assert.is(c.status, 201, show(c));
  const k = kubectlFor(S.t.kubeconfig);
  assert.is((await k.ok('certificate', 'approve', S.n('kctl'))).trim(), `certificatesigningrequest.certificates.k8s.io/${S.n('kctl')} approved`);
  const g = await S.t.client.request('GET', `${C}/${S.n('kctl')}`);
  const cond = (g.json as any).status.conditions;
  assert.equal([cond.length, cond[0].type, cond[0].status, cond[0].reason, cond[0].message], [1, 'Approved', 'True', 'KubectlApprove', 'This CSR was approved by kubectl certificate approve.'], show(g));
  const out = await k.ok('get', 'csr', S.n('kctl'), '--no-headers');
  assert.equal(out.trim().split(/\s+/).filter((_, i) => i !== 1), [S.n('kctl'), SIGNER, (c.json as any).spec.username, '24h', 'Approved']);
});

test('RBAC bootstrap: the certificate controller approves and signs for the kubernetes.io signers (SubjectAccessReview)', async () => {
  await checkAccess(S.t, GROUP, [
    ['system:serviceaccount:kube-system:certificate-controller', [], 'list', 'certificatesigningrequests', '', '', true],
    ['system:serviceaccount:kube-system:certificate-controller', [], 'update', 'certificatesigningrequests/status', '', 'x', true],
    ['system:serviceaccount:kube-system:certificate-controller', [], 'update', 'certificatesigningrequests/approval', '', 'x', true],
    ['system:serviceaccount:kube-system:certificate-controller', [], 'sign', 'signers', '', 'kubernetes.io/kube-apiserver-client', true],
    ['system:serviceaccount:kube-system:certificate-controller', [], 'approve', 'signers', '', 'kubernetes.io/kube-apiserver-client-kubelet', true],
    ['system:serviceaccount:kube-system:certificate-controller', [], 'approve', 'signers', '', 'example.com/x', false],
    ['nobody', ['system:authenticated'], 'approve', 'signers', '', 'example.com/x', false],
  ]);
});

test.run();
