import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import type { Authorizer } from '../auth/authz.ts';
import type { AdmissionAttributes } from './chain.ts';
import { ApiError } from '../api/errors.ts';
import { csrKind } from '../registry/certificates/csr.ts';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './certificates.ts';

/** An authorizer allowing exactly the `verb name` pairs given, and recording what it was asked. */
function authorizer(allowed: string[]): Authorizer & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    authorize(a) {
      asked.push(`${a.verb} ${a.group}/${a.resource} ${a.name}`);
      return { allowed: allowed.includes(`${a.verb} ${a.name}`), denied: false, reason: '' } as any;
    },
  };
}
const csr = (status: Record<string, unknown> = {}, signerName = 'example.com/s'): KubeObject => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c' }, spec: { signerName }, status });
const attrs = (operation: 'CREATE' | 'UPDATE', subresource: string, object: KubeObject, oldObject: KubeObject | null): AdmissionAttributes => ({ operation, kind: csrKind, subresource, namespace: '', name: 'c', object, oldObject, user: { username: 'bob', groups: [] }, dryRun: false });

/** The refusal `f` throws or rejects with ('' when none): code and message. */
const refusal = async (f: () => Promise<void> | void): Promise<string> => {
  try {
    await f();
    return '';
  } catch (e) {
    assert.ok(e instanceof ApiError);
    return `${e.code} ${e.status.message}`;
  }
};

test('CertificateApproval: approve on the signer, then on its domain wildcard', async () => {
  const none = authorizer([]);
  assert.is(await refusal(() => certificateApproval(none).validate(attrs('UPDATE', 'approval', csr(), csr()))), '403 certificatesigningrequests.certificates.k8s.io "c" is forbidden: user not permitted to approve requests with signerName "example.com/s"');
  assert.equal(none.asked, ['approve certificates.k8s.io/signers example.com/s', 'approve certificates.k8s.io/signers example.com/*']);
  assert.is(await refusal(() => certificateApproval(authorizer(['approve example.com/*'])).validate(attrs('UPDATE', 'approval', csr(), csr()))), '');
  assert.is(certificateApproval(none).validate(attrs('UPDATE', 'status', csr(), csr())), undefined, 'other subresources pass');
});

test('CertificateSigning: sign only when conditions or the certificate change', async () => {
  const none = authorizer([]);
  assert.is(certificateSigning(none).validate(attrs('UPDATE', 'status', csr(), csr())), undefined);
  assert.match(await refusal(() => certificateSigning(none).validate(attrs('UPDATE', 'status', csr({ certificate: 'eA==' }), csr()))), /user not permitted to sign requests with signerName "example.com\/s"$/);
  assert.is(await refusal(() => certificateSigning(authorizer(['sign example.com/s'])).validate(attrs('UPDATE', 'status', csr({ certificate: 'eA==' }), csr()))), '');
});

test('CertificateSubjectRestriction: only the kube-apiserver-client signer is checked', async () => {
  const c = csr({}, 'kubernetes.io/kube-apiserver-client');
  (c.spec as any).request = Buffer.from('not pem').toString('base64');
  assert.match(await refusal(() => certificateSubjectRestriction.validate(attrs('CREATE', '', c, null))), /failed to parse CSR: PEM block type must be CERTIFICATE REQUEST$/);
  assert.is(certificateSubjectRestriction.validate(attrs('CREATE', '', csr(), null)), undefined);
});

test.run();
