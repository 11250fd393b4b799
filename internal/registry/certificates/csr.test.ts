import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync, createSign } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { csrApprovalStrategy, csrCondition, csrKind, csrStatusStrategy, csrTable, validateSignerName } from './csr.ts';
import { checkCertificationRequest } from './pkcs10.ts';
import { FieldPath } from '../../api/field-errors.ts';

/** A DER TLV. */
const tlv = (tag: number, body: Buffer): Buffer => {
  const len = body.length < 128 ? Buffer.from([body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
};
const oid = (bytes: number[]): Buffer => tlv(0x06, Buffer.from(bytes));
const OID_O = [0x55, 0x04, 0x0a];
const OID_ECDSA_SHA256 = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];

/** A PKCS#10 request for subject O=`org`, ECDSA P-256 / SHA-256, signed (or not) by its own key. */
function pkcs10(org: string, tamper = false): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const subject = tlv(0x30, tlv(0x31, tlv(0x30, Buffer.concat([oid(OID_O), tlv(0x0c, Buffer.from(org))]))));
  const info = tlv(0x30, Buffer.concat([tlv(0x02, Buffer.from([0])), subject, spki, tlv(0xa0, Buffer.alloc(0))]));
  const sig = createSign('sha256').update(info).sign(privateKey);
  if (tamper) sig[sig.length - 1] ^= 1;
  const der = tlv(0x30, Buffer.concat([info, tlv(0x30, oid(OID_ECDSA_SHA256)), tlv(0x03, Buffer.concat([Buffer.from([0]), sig]))]));
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
}

const S = csrKind.strategy;
const REQ = Buffer.from(pkcs10('dev')).toString('base64');
const csr = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name: 'c', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: { request: REQ, signerName: 'example.com/s', usages: ['client auth'], ...spec },
  status,
});

test('pkcs10: the subject organizations; a bad signature or PEM type is kube message', () => {
  assert.equal(checkCertificationRequest(Buffer.from(pkcs10('system:masters'))), { organizations: ['system:masters'] });
  assert.throws(() => checkCertificationRequest(Buffer.from(pkcs10('x', true))), /^x509: ECDSA verification failure$/);
  assert.throws(() => checkCertificationRequest(Buffer.from('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n')), /^PEM block type must be CERTIFICATE REQUEST$/);
});

test('prepareForCreate: the requester fills the spec; status emptied', () => {
  const o = csr({ username: 'mallory', groups: ['x'] }, { conditions: [{ type: 'Approved', status: 'True' }] });
  S.prepareForCreate!(o, { username: 'alice', uid: 'u1', groups: ['g'], extra: { k: ['v'] } });
  assert.equal([o.spec, o.status], [{ request: REQ, signerName: 'example.com/s', usages: ['client auth'], username: 'alice', uid: 'u1', groups: ['g'], extra: { k: ['v'] } }, {}]);
});

test('validate: usages, signer names, expirationSeconds, conditions', () => {
  check('ok', S.validate(csr()), []);
  check('usages', S.validate(csr({ usages: [] })), [{ type: 'FieldValueRequired', field: 'spec.usages', msg: 'usages must be provided' }]);
  check('legacy', S.validate(csr({ signerName: 'kubernetes.io/legacy-unknown' })), [{ type: 'FieldValueInvalid', field: 'spec.signerName', msg: 'the legacy signerName is not allowed via this API version' }]);
  check('expiration', S.validate(csr({ expirationSeconds: 10 })), [{ type: 'FieldValueInvalid', field: 'spec.expirationSeconds' }]);
  check('two slashes', validateSignerName(new FieldPath('s'), 'a.b/c/d'), [{ type: 'FieldValueInvalid', field: 's' }]);
  check('too long', validateSignerName(new FieldPath('s'), `a.b/${'c'.repeat(600)}`), [{ type: 'FieldValueInvalid', field: 's' }, { type: 'FieldValueTooLong', field: 's' }]);
});

test('update rules: a legacy signer stored before stays updatable; /status keeps Approved, may set a certificate once; /approval only conditions', () => {
  const legacy = csr({ signerName: 'kubernetes.io/legacy-unknown' });
  check('legacy kept', S.validateUpdate(structuredClone(legacy), legacy), []);
  const approved = csr({}, { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: 't', lastTransitionTime: 't' }] });
  const n = csr({ usages: ['any'] }, { conditions: [{ type: 'Approved', status: 'True', reason: 'changed' }, { type: 'Failed', status: 'True' }], certificate: 'eA==' });
  csrStatusStrategy.prepareForUpdate(n, approved);
  const conds = (n.status as any).conditions;
  assert.equal([(n.spec as any).usages, conds[0], conds[1].type], [['client auth'], { type: 'Approved', status: 'True', lastUpdateTime: 't', lastTransitionTime: 't' }, 'Failed']);
  assert.ok(conds[1].lastUpdateTime && conds[1].lastTransitionTime === conds[1].lastUpdateTime);
  check('garbage certificate', csrStatusStrategy.validateUpdate(n, approved), [{ type: 'FieldValueInvalid', field: 'status.certificate', msg: 'must contain at least one CERTIFICATE PEM block' }]);
  const a = csr({ usages: ['any'] }, { conditions: [{ type: 'Denied', status: 'True' }], certificate: 'eA==' });
  csrApprovalStrategy.prepareForUpdate(a, csr());
  assert.equal([(a.spec as any).usages, (a.status as any).certificate, (a.status as any).conditions.length], [['client auth'], undefined, 1]);
  check('approval ok', csrApprovalStrategy.validateUpdate(a, csr()), []);
  check('status may not add Denied', csrStatusStrategy.validateUpdate(a, csr()), [{ type: 'FieldValueForbidden', field: 'status.conditions', msg: 'updates may not add a condition of type "Denied"' }]);
});

test('table: SignerName, Requestor, RequestedDuration, Condition', () => {
  const o = csr({ username: 'alice', expirationSeconds: 7200 }, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True' }], certificate: 'eA==' });
  assert.equal(csrTable.cells(o), ['c', '2024-01-01T00:00:00Z', 'example.com/s', 'alice', '120m', 'Approved,Failed,Issued']);
  assert.equal(csrTable.cells(csr({ signerName: '' })).slice(2), ['<none>', '', '<none>', 'Pending']);
  assert.is(csrCondition(csr({}, { conditions: [{ type: 'Approved' }, { type: 'Denied' }] })), 'Denied');
});

test.run();
