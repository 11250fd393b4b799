/** The certificates.k8s.io group's kinds: CertificateSigningRequest v1. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { csrKind } from './csr.ts';

export { csrKind };

export const certificatesKinds: KindDescriptor[] = [csrKind];
