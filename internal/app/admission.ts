/**
 * Start-up step: the admission chains, in kube-apiserver 1.24's default plugin order
 * (AllOrderedPlugins) for the plugins this server has: NamespaceLifecycle, ServiceAccount,
 * TaintNodesByCondition, Priority, DefaultTolerationSeconds, DefaultStorageClass, …, CertificateApproval, CertificateSigning,
 * CertificateSubjectRestriction, …. The dynamic admission webhooks come
 * last in each chain (MutatingAdmissionWebhook, ValidatingAdmissionWebhook); their configurations
 * are read from a cache that follows the fold (started with the RBAC cache).
 */
import type { Authorizer } from '../auth/authz.ts';
import type { RbacAuthorizer } from '../auth/rbac/authorizer.ts';
import { rbacEscalation } from '../admission/rbac-escalation.ts';
import { AdmissionChain } from '../admission/chain.ts';
import { defaultTolerationSeconds, priorityAdmission, runtimeClassAdmission } from '../admission/pod-defaults.ts';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { WebhookSource } from '../admission/webhook/source.ts';
import { mutatingWebhooks, validatingWebhooks, type WebhookObservation } from '../admission/webhook/dispatch.ts';
import { kindConverter } from '../admission/webhook/equivalents.ts';
import { serviceAccountAdmission } from '../admission/service-account.ts';
import { defaultStorageClass, persistentVolumeClaimResize, storageObjectInUseProtection } from '../admission/storage.ts';
import { defaultIngressClass } from '../admission/default-ingress-class.ts';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from '../admission/certificates.ts';
import { taintNodesByCondition } from '../admission/taint-nodes-by-condition.ts';
import type { Storage } from '../storage/storage.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';

/** `kinds`: the served kinds, read per call (the registry is built after the chain). */
export function admissionChains(storage: Storage, authorizer: Authorizer, rbac: RbacAuthorizer, metrics: ApiMetrics, kinds: () => readonly KindDescriptor[]) {
  const lifecycle = namespaceLifecycle(storage);
  const serviceAccount = serviceAccountAdmission(storage);
  const priority = priorityAdmission(storage);
  const runtimeClass = runtimeClassAdmission(storage);
  const webhookSource = new WebhookSource();
  const webhookDeps = { source: webhookSource, converter: kindConverter(kinds), observe: (o: WebhookObservation) => metrics.observeWebhook(o) };
  const admission = new AdmissionChain(
    [rbacEscalation(authorizer, rbac), lifecycle, serviceAccount, taintNodesByCondition, priority, defaultTolerationSeconds, defaultStorageClass(storage), storageObjectInUseProtection(), runtimeClass, defaultIngressClass(storage), mutatingWebhooks(webhookDeps)],
    [lifecycle, serviceAccount, priority, persistentVolumeClaimResize(storage), runtimeClass, certificateApproval(authorizer), certificateSigning(authorizer), certificateSubjectRestriction, validatingWebhooks(webhookDeps)],
  );
  return { admission, webhookSource };
}
