/**
 * Start-up step: the admission chains, in kube-apiserver 1.24's default plugin order
 * (AllOrderedPlugins) for the plugins this server has: NamespaceLifecycle, LimitRanger, ServiceAccount,
 * TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, …, CertificateApproval,
 * CertificateSigning, CertificateSubjectRestriction, …. The dynamic admission webhooks come
 * last in each chain (MutatingAdmissionWebhook, ValidatingAdmissionWebhook), then ResourceQuota; their configurations
 * are read from a cache that follows the fold (started with the RBAC cache), whose Namespace labels
 * PodSecurity reads too.
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
import { nodeRestriction } from '../admission/node-restriction.ts';
import type { Storage } from '../storage/storage.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';
import type { Registry } from '../registry/registry.ts';
import { resourceQuotaAdmission, type QuotaAccess } from '../admission/resource-quota.ts';
import { limitRanger } from '../admission/limit-ranger.ts';
import { podSecurity } from '../admission/pod-security.ts';
import { type PodSecurityConfig, podSecurityConfiguration } from '../admission/pod-security-config.ts';
import { AdmissionConfigError, readAdmissionConfiguration } from '../admission/admission-config.ts';
import { NamespaceIndex } from '../admission/namespace-index.ts';
import { systemContext } from '../registry/generic/context.ts';

/** kube-apiserver's loopback client: user system:apiserver, field manager kube-apiserver. */
const LOOPBACK = { ...systemContext('kube-apiserver'), user: { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] } };

/**
 * ResourceQuota's access to quotas: read from the store as last folded (kube reads its informer),
 * status written through the registry's `/status` as kube's loopback client does (field manager
 * kube-apiserver).
 */
function quotaAccess(storage: Storage, registry: () => Registry | undefined): QuotaAccess {
  const quotas = new NamespaceIndex(storage, '', 'resourcequotas');
  // Scanned at start, not at the first write: every write asks it, and a store found damaged
  // before then would refuse that write's read ("not reading a damaged store") rather than the
  // write itself ("not writing to a damaged store") — on a serving thread, whose first write
  // may come long after start, as on the leader, whose controllers write at start.
  quotas.prime().catch(() => undefined);
  return {
    list: (namespace) => quotas.list(namespace),
    mayHave: (namespace) => quotas.mayHave(namespace),
    async updateStatus(quota) {
      const served = registry()?.lookup('', 'v1', 'resourcequotas');
      if (!served) throw new Error('resourcequotas are not served');
      await served.store.update(LOOPBACK, quota.metadata.namespace ?? '', quota.metadata.name ?? '', quota, 'status');
    },
  };
}

/** The plugins' configurations from --admission-control-config-file (PodSecurity's, for now). */
export interface AdmissionPluginConfigs {
  podSecurity: PodSecurityConfig;
}

/**
 * Reads and checks --admission-control-config-file before anything starts, as kube-apiserver's
 * admission initialization does: an error is a start-up error with kube's message.
 */
export function admissionConfiguration(file: string | undefined): AdmissionPluginConfigs {
  try {
    const provider = readAdmissionConfiguration(file);
    return { podSecurity: podSecurityConfiguration(provider.configFor('PodSecurity')) };
  } catch (e) {
    if (e instanceof AdmissionConfigError) throw new Error(`failed to initialize admission: ${e.message}`);
    throw e;
  }
}

/**
 * `kinds`: the served kinds, read per call (the registry is built after the chain); `registry`
 * likewise.
 */
export function admissionChains(
  storage: Storage,
  authorizer: Authorizer,
  rbac: RbacAuthorizer,
  metrics: ApiMetrics,
  kinds: () => readonly KindDescriptor[],
  registry: () => Registry | undefined = () => undefined,
  config: AdmissionPluginConfigs = admissionConfiguration(undefined),
) {
  const lifecycle = namespaceLifecycle(storage);
  const limits = limitRanger(storage);
  const serviceAccount = serviceAccountAdmission(storage);
  const priority = priorityAdmission(storage);
  const runtimeClass = runtimeClassAdmission(storage);
  const webhookSource = new WebhookSource();
  const webhookDeps = { source: webhookSource, converter: kindConverter(kinds), observe: (o: WebhookObservation) => metrics.observeWebhook(o) };
  const admission = new AdmissionChain(
    [rbacEscalation(authorizer, rbac), lifecycle, limits, serviceAccount, nodeRestriction(storage), taintNodesByCondition, priority, defaultTolerationSeconds, defaultStorageClass(storage), storageObjectInUseProtection(), runtimeClass, defaultIngressClass(storage), mutatingWebhooks(webhookDeps)],
    [lifecycle, limits, serviceAccount, podSecurity(storage, (name) => webhookSource.namespaceLabels(name), config.podSecurity), priority, persistentVolumeClaimResize(storage), runtimeClass, certificateApproval(authorizer), certificateSigning(authorizer), certificateSubjectRestriction, validatingWebhooks(webhookDeps), resourceQuotaAdmission(quotaAccess(storage, registry))],
  );
  return { admission, webhookSource };
}
