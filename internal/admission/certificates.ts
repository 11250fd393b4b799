/**
 * The CertificateSigningRequest admission plugins kube-apiserver 1.24 enables by default
 * (plugin/pkg/admission/certificates), all validating:
 *
 * - CertificateApproval: an update of `certificatesigningrequests/approval` needs the verb
 *   `approve` on `signers` (certificates.k8s.io) named the CSR's signerName or `<domain>/*`;
 * - CertificateSigning: an update of `certificatesigningrequests/status` that changes the
 *   certificate or the conditions needs the verb `sign` on the same;
 * - CertificateSubjectRestriction: a CSR for `kubernetes.io/kube-apiserver-client` may not ask for
 *   the `system:masters` organization.
 */
import type { KubeObject } from '../api/types.ts';
import { forbidden } from '../api/errors.ts';
import type { Authorizer } from '../auth/authz.ts';
import type { AdmissionAttributes, ValidatingPlugin } from './chain.ts';
import { semanticEqual } from '../gocompat/equal.ts';
import { KUBE_APISERVER_CLIENT_SIGNER } from '../registry/certificates/csr.ts';
import { parseCertificationRequest } from '../registry/certificates/pkcs10.ts';

const GROUP = 'certificates.k8s.io';
const RESOURCE = 'certificatesigningrequests';

const isCSR = (a: AdmissionAttributes): boolean => a.kind.group === GROUP && a.kind.resource === RESOURCE;
const spec = (o: KubeObject | null): Record<string, unknown> => ((o?.spec ?? {}) as Record<string, unknown>);
const status = (o: KubeObject | null): Record<string, unknown> => ((o?.status ?? {}) as Record<string, unknown>);
const signerOf = (o: KubeObject | null): string => String(spec(o).signerName ?? '');
const refuse = (a: AdmissionAttributes, message: string) => forbidden({ group: GROUP, resource: RESOURCE }, a.name, message);

/** IsAuthorizedForSignerName: `verb` on the signer by name, else on its domain's wildcard. */
async function authorizedForSigner(authorizer: Authorizer, a: AdmissionAttributes, verb: string, signerName: string): Promise<boolean> {
  const ask = async (name: string) => (await authorizer.authorize({ user: a.user, verb, isResourceRequest: true, group: GROUP, version: '*', resource: 'signers', subresource: '', namespace: '', name, path: '' })).allowed;
  return (await ask(signerName)) || ask(`${signerName.split('/')[0]}/*`);
}

export function certificateApproval(authorizer: Authorizer): ValidatingPlugin {
  return {
    name: 'CertificateApproval',
    validate(a) {
      if (a.operation !== 'UPDATE' || a.subresource !== 'approval' || !isCSR(a)) return;
      const signer = signerOf(a.oldObject);
      return authorizedForSigner(authorizer, a, 'approve', signer).then((ok) => {
        if (!ok) throw refuse(a, `user not permitted to approve requests with signerName "${signer}"`);
      });
    },
  };
}

export function certificateSigning(authorizer: Authorizer): ValidatingPlugin {
  return {
    name: 'CertificateSigning',
    validate(a) {
      if (a.operation !== 'UPDATE' || a.subresource !== 'status' || !isCSR(a)) return;
      const [n, o] = [status(a.object), status(a.oldObject)];
      if ((n.certificate ?? null) === (o.certificate ?? null) && semanticEqual(n.conditions ?? null, o.conditions ?? null)) return;
      const signer = signerOf(a.oldObject);
      return authorizedForSigner(authorizer, a, 'sign', signer).then((ok) => {
        if (!ok) throw refuse(a, `user not permitted to sign requests with signerName "${signer}"`);
      });
    },
  };
}

export const certificateSubjectRestriction: ValidatingPlugin = {
  name: 'CertificateSubjectRestriction',
  validate(a) {
    if (a.operation !== 'CREATE' || a.subresource || !isCSR(a) || signerOf(a.object) !== KUBE_APISERVER_CLIENT_SIGNER) return;
    let organizations: string[];
    try {
      organizations = parseCertificationRequest(Buffer.from(String(spec(a.object).request ?? ''), 'base64')).request.organizations;
    } catch (e) {
      throw refuse(a, `failed to parse CSR: ${(e as Error).message}`);
    }
    if (organizations.includes('system:masters')) throw refuse(a, `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
  },
};
