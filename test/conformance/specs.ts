/**
 * The upstream e2e specs (k8s.io/kubernetes@v1.24.17 test/e2e) that `npm run conformance` runs,
 * and the ones it deliberately leaves out, each with the reason. A spec is in when it needs no
 * node, kubelet, scheduler or controller-manager and touches only what this server serves
 * (namespaces, configmaps, secrets, watch, discovery, tables, /version, /healthz…, kubectl
 * against those). Names are the full ginkgo texts: `[sig-…] <Describe> <It>` plus ` [Conformance]`
 * for framework.ConformanceIt.
 */

/** One upstream spec and why it is (or is not) run. */
export interface Spec {
  /** Full ginkgo spec text, matched exactly. */
  name: string;
  /** Source file under test/e2e. */
  file: string;
  /** Why it is in (SPECS) or out (EXCLUDED). */
  why: string;
  /**
   * Set when the spec cannot pass on the reference cluster for a reason that is no fidelity
   * question (it has no controller-manager), or would leave litter there; the runner skips it
   * when targeting `--kubeconfig` and says why.
   */
  skipOnReference?: string;
}

/**
 * Why the ResourceQuota specs that wait for status.used are skipped on the reference. With
 * kube-controller-manager 1.24.17 beside it (`--controllers=resourcequota,serviceaccount,pvc-protection`)
 * all 23 ResourceQuota specs pass there too (`--run-all`, 2026-11-29, 268 s).
 */
const NO_QUOTA_CONTROLLER = 'needs the resourcequota controller (kube-controller-manager), which the reference does not run';

/** Why the garbage-collection specs are skipped on the reference. */
const NO_GC = 'needs the garbage collector (kube-controller-manager), which the reference does not run';

/** Why the PodDisruptionBudget specs are skipped on the reference. */
const NO_DISRUPTION = 'waits for the disruption controller (kube-controller-manager) to set status.observedGeneration, and the reference runs none';

/** Specs run by `npm run conformance`. */
export const SPECS: Spec[] = [
  // --- common/node/configmap.go, common/storage/configmap_volume.go
  { name: '[sig-node] ConfigMap should fail to create ConfigMap with empty key [Conformance]', file: 'common/node/configmap.go', why: 'create with data key "" must be rejected (422): configmaps only' },
  { name: '[sig-node] ConfigMap should update ConfigMap successfully', file: 'common/node/configmap.go', why: 'create, update, get: configmaps only' },
  { name: '[sig-node] ConfigMap should run through a ConfigMap lifecycle [Conformance]', file: 'common/node/configmap.go', why: 'create, get, strategic merge patch, all-namespaces list with label selector, deletecollection' },
  { name: '[sig-storage] ConfigMap should be immutable if `immutable` field is set [Conformance]', file: 'common/storage/configmap_volume.go', why: 'immutable configmap updates rejected as Invalid, metadata still mutable, delete' },
  // --- common/node/secrets.go, common/storage/secrets_volume.go
  { name: '[sig-node] Secrets should fail to create secret due to empty secret key [Conformance]', file: 'common/node/secrets.go', why: 'create with data key "" must be rejected: secrets only' },
  { name: '[sig-node] Secrets should patch a secret [Conformance]', file: 'common/node/secrets.go', why: 'create, all-namespaces list with label selector, patch, deletecollection' },
  { name: '[sig-storage] Secrets should be immutable if `immutable` field is set [Conformance]', file: 'common/storage/secrets_volume.go', why: 'immutable secret updates rejected as Invalid, metadata still mutable, delete' },
  // --- apimachinery/namespace.go
  { name: '[sig-api-machinery] Namespaces [Serial] should patch a Namespace [Conformance]', file: 'apimachinery/namespace.go', why: 'namespace create + strategic merge patch of labels' },
  {
    name: '[sig-api-machinery] Namespaces [Serial] should delete fast enough (90 percent of 100 namespaces in 150 seconds)',
    file: 'apimachinery/namespace.go',
    why: 'namespaces only: 100 creates, deletes, then waits for the namespace lifecycle to finalize them (this server runs that controller in-process)',
    skipOnReference: 'needs the namespace controller (kube-controller-manager), which the reference does not run, and would leave 100 Terminating namespaces in the shared cluster',
  },
  // --- apimachinery/watch.go (configmaps only)
  { name: '[sig-api-machinery] Watchers should observe add, update, and delete watch notifications on configmaps [Conformance]', file: 'apimachinery/watch.go', why: 'label-selector watches on configmaps' },
  { name: '[sig-api-machinery] Watchers should be able to start watching from a specific resource version [Conformance]', file: 'apimachinery/watch.go', why: 'watch from a resourceVersion' },
  { name: '[sig-api-machinery] Watchers should be able to restart watching from the last resource version observed by the previous watch [Conformance]', file: 'apimachinery/watch.go', why: 'watch resume' },
  { name: '[sig-api-machinery] Watchers should observe an object deletion if it stops meeting the requirements of the selector [Conformance]', file: 'apimachinery/watch.go', why: 'selector watch turns "stopped matching" into DELETED' },
  { name: '[sig-api-machinery] Watchers should receive events on concurrent watches in same order [Conformance]', file: 'apimachinery/watch.go', why: 'many concurrent watches from successive resourceVersions see one order' },
  // --- apimachinery/protocol.go (configmaps only)
  { name: '[sig-api-machinery] client-go should negotiate watch and report errors with accept "application/json"', file: 'apimachinery/protocol.go', why: 'watch on configmaps, JSON' },
  { name: '[sig-api-machinery] client-go should negotiate watch and report errors with accept "application/vnd.kubernetes.protobuf"', file: 'apimachinery/protocol.go', why: 'watch on configmaps, protobuf' },
  { name: '[sig-api-machinery] client-go should negotiate watch and report errors with accept "application/vnd.kubernetes.protobuf,application/json"', file: 'apimachinery/protocol.go', why: 'watch on configmaps, protobuf preferred' },
  { name: '[sig-api-machinery] client-go should negotiate watch and report errors with accept "application/json,application/vnd.kubernetes.protobuf"', file: 'apimachinery/protocol.go', why: 'watch on configmaps, JSON preferred' },
  // --- apimachinery/discovery.go, server_version.go, health_handlers.go, table_conversion.go
  { name: '[sig-api-machinery] Discovery should validate PreferredVersion for each APIGroup [Conformance]', file: 'apimachinery/discovery.go', why: 'GET /apis and each /apis/<group>' },
  { name: '[sig-api-machinery] server version should find the server version [Conformance]', file: 'apimachinery/server_version.go', why: 'GET /version' },
  { name: '[sig-api-machinery] health handlers should contain necessary checks', file: 'apimachinery/health_handlers.go', why: '/healthz, /livez, /readyz ?verbose must list kube-apiserver\'s check names' },
  {
    name: '[sig-api-machinery] Servers with support for Table transformation should return a 406 for a backend which does not implement metadata [Conformance]',
    file: 'apimachinery/table_conversion.go',
    why: 'Table Accept on a POST to authorization.k8s.io/v1 selfsubjectaccessreviews must be 406 (kinds without metadata cannot be tables)',
  },
  // --- common/node/lease.go
  // --- common/node/podtemplates.go
  { name: '[sig-node] PodTemplates should run the lifecycle of PodTemplates [Conformance]', file: 'common/node/podtemplates.go', why: 'podtemplates: create, get, patch labels, list by label, delete' },
  { name: '[sig-node] PodTemplates should delete a collection of pod templates [Conformance]', file: 'common/node/podtemplates.go', why: 'podtemplates: create several, list by label, deletecollection' },
  { name: '[sig-node] PodTemplates should replace a pod template [Conformance]', file: 'common/node/podtemplates.go', why: 'podtemplates: create, update (replace) the template, get' },
  // --- apimachinery/resource_quota.go
  { name: '[sig-api-machinery] ResourceQuota should be able to update and delete ResourceQuota. [Conformance]', file: 'apimachinery/resource_quota.go', why: 'resourcequotas: create, get, update spec.hard, delete (no quota controller needed)' },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and ensure its status is promptly calculated. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'status.hard/used filled by the resourcequota controller',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a service. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'services, services.nodeports/loadbalancers counted by admission, replenished on delete',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a secret. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'secrets counted by admission, replenished on delete',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a pod. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'pods and compute resources (requests/limits, extended resources) counted and refused by admission, replenished on delete',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a configMap. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'configmaps counted by admission (kube-root-ca.crt present), replenished on delete',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a replication controller. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'replicationcontrollers counted by admission, replenished on delete',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a replica set. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'count/replicasets.apps counted by admission, replenished on delete',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a persistent volume claim',
    file: 'apimachinery/resource_quota.go',
    why: 'persistentvolumeclaims and requests.storage',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a persistent volume claim with a storage class',
    file: 'apimachinery/resource_quota.go',
    why: 'per-storage-class claim quota',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a custom resource.',
    file: 'apimachinery/resource_quota.go',
    why: 'count/<plural>.<group> of a custom resource',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should verify ResourceQuota with terminating scopes. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'Terminating/NotTerminating scopes',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should verify ResourceQuota with best effort scope. [Conformance]',
    file: 'apimachinery/resource_quota.go',
    why: 'BestEffort/NotBestEffort scopes',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota [Feature:ScopeSelectors] should verify ResourceQuota with best effort scope using scope-selectors.',
    file: 'apimachinery/resource_quota.go',
    why: 'BestEffort scope selectors',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota [Feature:ScopeSelectors] should verify ResourceQuota with terminating scopes through scope selectors.',
    file: 'apimachinery/resource_quota.go',
    why: 'Terminating scope selectors',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: "[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's priority class scope (quota set to pod count: 1) against a pod with same priority class.",
    file: 'apimachinery/resource_quota.go',
    why: 'PriorityClass In',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: "[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's priority class scope (quota set to pod count: 1) against 2 pods with same priority class.",
    file: 'apimachinery/resource_quota.go',
    why: 'PriorityClass In, second pod refused',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: "[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's priority class scope (quota set to pod count: 1) against 2 pods with different priority class.",
    file: 'apimachinery/resource_quota.go',
    why: 'PriorityClass In, other class not counted',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: "[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's multiple priority class scope (quota set to pod count: 2) against 2 pods with same priority classes.",
    file: 'apimachinery/resource_quota.go',
    why: 'PriorityClass In with two values',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: "[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's priority class scope (quota set to pod count: 1) against a pod with different priority class (ScopeSelectorOpNotIn).",
    file: 'apimachinery/resource_quota.go',
    why: 'PriorityClass NotIn',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: "[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's priority class scope (quota set to pod count: 1) against a pod with different priority class (ScopeSelectorOpExists).",
    file: 'apimachinery/resource_quota.go',
    why: 'PriorityClass Exists',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: "[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's priority class scope (cpu, memory quota set) against a pod with same priority class.",
    file: 'apimachinery/resource_quota.go',
    why: 'PriorityClass with compute resources',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  {
    name: '[sig-api-machinery] ResourceQuota should verify ResourceQuota with cross namespace pod affinity scope using scope-selectors.',
    file: 'apimachinery/resource_quota.go',
    why: 'CrossNamespacePodAffinity scope',
    skipOnReference: NO_QUOTA_CONTROLLER,
  },
  // --- scheduling/limit_range.go
  {
    name: '[sig-scheduling] LimitRange should create a LimitRange with defaults and ensure pod has those defaults applied. [Conformance]',
    file: 'scheduling/limit_range.go',
    why: 'LimitRanger admission: defaults given to new Pods, min/max refusals, an updated LimitRange in force at once',
    skipOnReference: 'creates Pods, which need the default ServiceAccount of the serviceaccount controller (kube-controller-manager), which the reference does not run; with it, it passes there (2026-11-29)',
  },
  { name: '[sig-node] Lease lease API should be available [Conformance]', file: 'common/node/lease.go', why: 'leases: create, get, update, strategic merge patch, list, deletecollection by label, delete, all-namespaces list' },
  // --- apimachinery/custom_resource_definition.go, crd_watch.go, crd_publish_openapi.go, discovery.go (issue 26)
  { name: '[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition creating/deleting custom resource definition objects works  [Conformance]', file: 'apimachinery/custom_resource_definition.go', why: 'CRD create, wait Established, delete' },
  { name: '[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition listing custom resource definition objects works  [Conformance]', file: 'apimachinery/custom_resource_definition.go', why: 'CRD list with a label selector, deletecollection' },
  { name: '[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition getting/updating/patching custom resource definition status sub-resource works  [Conformance]', file: 'apimachinery/custom_resource_definition.go', why: 'CRD /status get, update, patch' },
  { name: '[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] should include custom resource definition resources in discovery documents [Conformance]', file: 'apimachinery/custom_resource_definition.go', why: 'apiextensions.k8s.io in /apis, /apis/apiextensions.k8s.io and its v1 resources' },
  { name: '[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] custom resource defaulting for requests and from storage works  [Conformance]', file: 'apimachinery/custom_resource_definition.go', why: 'defaults applied on create and on read of objects stored before the default was added' },
  { name: '[sig-api-machinery] ServerSideApply should work for CRDs', file: 'apimachinery/apply.go', why: 'server-side apply of a custom resource at a version other than the first served one, list-map keys of its schema' },
  { name: '[sig-api-machinery] CustomResourceDefinition Watch [Privileged:ClusterAdmin] CustomResourceDefinition Watch watch on custom resource definition objects [Conformance]', file: 'apimachinery/crd_watch.go', why: 'watch of a cluster-scoped custom resource: ADDED, MODIFIED, DELETED' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD with validation schema [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'the kind\'s /openapi/v2 definition; kubectl 1.24 create/apply validated with it (unknown and missing fields refused client-side, enum by the server); kubectl explain' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD without validation schema [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'a schema preserving unknown fields at the root publishes `type: object`; kubectl explain' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD preserving unknown fields at the schema root [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'x-kubernetes-preserve-unknown-fields at the root; kubectl create/apply/explain' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD preserving unknown fields in an embedded object [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'x-kubernetes-preserve-unknown-fields + embedded resource in a property; kubectl create/apply/explain' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for multiple CRDs of different groups [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'two CRDs\' definitions in /openapi/v2' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for multiple CRDs of same group but different versions [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'one definition per served version' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for multiple CRDs of same group and version but different kinds [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'two kinds in one group version' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] updates the published spec when one version gets renamed [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'a CRD JSON patch renames a version: the documents are rebuilt (ETag polling)' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] removes definition from spec when one version gets changed to not be served [Conformance]', file: 'apimachinery/crd_publish_openapi.go', why: 'an unserved version leaves /openapi/v2' },
  { name: '[sig-api-machinery] Discovery Custom resource should have storage version hash', file: 'apimachinery/discovery.go', why: 'a custom resource\'s storageVersionHash in discovery' },
  { name: '[sig-api-machinery] Discovery should accurately determine present and missing resources', file: 'apimachinery/discovery.go', why: 'discovery of apps/v1 deployments and of a resource that is not served' },
  { name: '[sig-cli] Kubectl client Kubectl validation should create/apply a CR with unknown fields for CRD with no validation schema', file: 'kubectl/kubectl.go', why: 'kubectl 1.24 create/apply of a custom resource (client-side validation against /openapi/v2)' },
  { name: '[sig-cli] Kubectl client Kubectl validation should create/apply a valid CR for CRD with validation schema', file: 'kubectl/kubectl.go', why: 'kubectl 1.24 create/apply of a custom resource with a schema' },
  { name: '[sig-cli] Kubectl client Kubectl validation should create/apply a valid CR with arbitrary-extra properties for CRD with partially-specified validation schema', file: 'kubectl/kubectl.go', why: 'the kind\'s definition read from the v2 protobuf document (gnostic), then create/apply' },
  // --- apimachinery/garbage_collector.go (custom resources only; this server runs the garbage collector in-process)
  { name: '[sig-api-machinery] Garbage collector should support cascading deletion of custom resources', file: 'apimachinery/garbage_collector.go', why: 'an owner custom resource deleted in the foreground takes its dependent custom resource', skipOnReference: NO_GC },
  { name: '[sig-api-machinery] Garbage collector should support orphan deletion of custom resources', file: 'apimachinery/garbage_collector.go', why: 'an owner custom resource deleted with propagationPolicy Orphan: the dependent loses its ownerReference', skipOnReference: NO_GC },
  // --- kubectl/kubectl.go ("Kubectl client": its BeforeEach only creates a namespace)
  { name: '[sig-cli] Kubectl client Kubectl api-versions should check if v1 is in available api versions  [Conformance]', file: 'kubectl/kubectl.go', why: 'kubectl api-versions: discovery only' },
  { name: '[sig-cli] Kubectl client Kubectl version should check is all data is printed  [Conformance]', file: 'kubectl/kubectl.go', why: 'kubectl version: /version' },
  { name: '[sig-cli] Kubectl client Kubectl cluster-info should check if Kubernetes control plane services is included in cluster-info  [Conformance]', file: 'kubectl/kubectl.go', why: 'kubectl cluster-info: lists services in kube-system with label kubernetes.io/cluster-service=true' },
  { name: '[sig-cli] Kubectl client Proxy server should support proxy with --port 0  [Conformance]', file: 'kubectl/kubectl.go', why: 'kubectl proxy, then GET /api through it' },
  { name: '[sig-cli] Kubectl client Proxy server should support --unix-socket=/path  [Conformance]', file: 'kubectl/kubectl.go', why: 'kubectl proxy on a unix socket, then GET /api' },
  { name: '[sig-network] IngressClass API  should support creating IngressClass API operations [Conformance]', file: 'network/ingressclass.go', why: 'IngressClass create, get, list, watch, patch, update, delete, deletecollection' },
  { name: '[sig-network] IngressClass [Feature:Ingress] should set default value on new IngressClass [Serial]', file: 'network/ingressclass.go', why: 'DefaultIngressClass admission sets the class of a new Ingress' },
  { name: '[sig-network] IngressClass [Feature:Ingress] should not set default value if no default IngressClass [Serial]', file: 'network/ingressclass.go', why: 'DefaultIngressClass admission without a default class' },
  { name: '[sig-network] IngressClass [Feature:Ingress] should prevent Ingress creation if more than 1 IngressClass marked as default [Serial]', file: 'network/ingressclass.go', why: 'DefaultIngressClass admission refuses with two default classes' },
  { name: '[sig-network] IngressClass [Feature:Ingress] should allow IngressClass to have Namespace-scoped parameters [Serial]', file: 'network/ingressclass.go', why: 'IngressClass parameters with scope Namespace' },
  { name: '[sig-network] Ingress API should support creating Ingress API operations [Conformance]', file: 'network/ingress.go', why: 'Ingress verbs and /status' },
  { name: '[sig-node] RuntimeClass  should support RuntimeClasses API operations [Conformance]', file: 'common/node/runtimeclass.go', why: 'RuntimeClass verbs (node.k8s.io/v1)' },
  { name: '[sig-node] RuntimeClass should reject a Pod requesting a non-existent RuntimeClass [NodeConformance] [Conformance]', file: 'common/node/runtimeclass.go', why: 'RuntimeClass admission refuses a Pod naming a missing class' },
  // --- network/endpointslice.go, auth/certificates.go
  { name: '[sig-network] EndpointSlice should support creating EndpointSlice API operations [Conformance]', file: 'network/endpointslice.go', why: 'EndpointSlice verbs (discovery.k8s.io/v1), label-selector watch and deletecollection' },
  { name: '[sig-auth] Certificates API [Privileged:ClusterAdmin] should support CSR API operations [Conformance]', file: 'auth/certificates.go', why: 'CertificateSigningRequest verbs, /approval and /status (get, update, patch), deletecollection' },
  // --- apps/cronjob.go, apimachinery/generated_clientset.go (batch: the specs that need no cronjob/job controller)
  { name: '[sig-apps] CronJob should support CronJob API operations [Conformance]', file: 'apps/cronjob.go', why: 'CronJob create, get, list, watch (namespaced and cluster-wide), patch, update, /status patch/update/get, delete, deletecollection (no Job is ever run)' },
  { name: '[sig-api-machinery] Generated clientset should create v1 cronJobs, delete cronJobs, watch cronJobs', file: 'apimachinery/generated_clientset.go', why: 'batch/v1 CronJob list, watch from a resourceVersion, create, background delete' },
  // --- apps/disruption.go: every spec waits for the disruption controller to observe its budget
  { name: '[sig-apps] DisruptionController Listing PodDisruptionBudgets for all namespaces should list and delete a collection of PodDisruptionBudgets [Conformance]', file: 'apps/disruption.go', why: 'PodDisruptionBudget create, all-namespaces list with a label selector, deletecollection; status observed by the disruption controller', skipOnReference: NO_DISRUPTION },
  { name: '[sig-apps] DisruptionController should create a PodDisruptionBudget [Conformance]', file: 'apps/disruption.go', why: 'PodDisruptionBudget create, update, merge patch, delete; status observed by the disruption controller', skipOnReference: NO_DISRUPTION },
  { name: '[sig-api-machinery] API priority and fairness should ensure that requests can be classified by adding FlowSchema and PriorityLevelConfiguration', file: 'apimachinery/flowcontrol.go', why: 'FlowSchema and PriorityLevelConfiguration (v1beta2) created, the Dangling condition, the level\'s concurrency-limit metric, and requests classified by them (the X-Kubernetes-PF-*-UID headers name the stored objects)' },
];

/** Specs of the same files deliberately not run, with the reason (kept here so the choice is reviewable). */
export const EXCLUDED: Spec[] = [
  { name: '[sig-network] EndpointSlice should have Endpoints and EndpointSlices pointing to API Server [Conformance]', file: 'network/endpointslice.go', why: 'the kubernetes Endpoints need a publishable advertise address; the test servers (and the reference) advertise 127.0.0.1, which Endpoints validation refuses (test/kubernetes-service.test.ts checks both with a routable address)' },
  { name: '[sig-network] EndpointSlice should create and delete / create Endpoints and EndpointSlices for Pods matching a Service [Conformance]', file: 'network/endpointslice.go', why: 'need the endpoints and endpointslice controllers and running pods' },
  { name: '[sig-auth] Certificates API [Privileged:ClusterAdmin] should support building a client with a CSR', file: 'auth/certificates.go', why: 'waits for a signer (kube-controller-manager) to issue the certificate' },
  { name: '[sig-apps] CronJob * (every other spec)', file: 'apps/cronjob.go', why: 'wait for the cronjob controller to run Jobs, and for their pods' },
  { name: '[sig-apps] Job *', file: 'apps/job.go', why: 'every spec waits for the job controller\'s pods to run or complete (needs nodes)' },
  { name: '[sig-apps] DisruptionController should observe PodDisruptionBudget status updated [Conformance]', file: 'apps/disruption.go', why: 'waits for 3 Running pods (needs a node)' },
  { name: '[sig-apps] DisruptionController should update/patch PodDisruptionBudget status [Conformance]', file: 'apps/disruption.go', why: 'locates a Running pod (needs a node)' },
  { name: '[sig-apps] DisruptionController should observe that the PodDisruptionBudget status is not updated for unmanaged pods', file: 'apps/disruption.go', why: 'waits for Running pods (needs a node)' },
  { name: '[sig-apps] DisruptionController evictions: * / should block an eviction until the PDB is updated to allow it [Conformance]', file: 'apps/disruption.go', why: 'evict Running pods (needs a node); the eviction answers are checked against the reference by test/fidelity/policy-eviction.test.ts' },
  { name: "[sig-api-machinery] API priority and fairness should ensure that requests can't be drowned out (priority)", file: 'apimachinery/flowcontrol.go', why: 'a load test (two clients at fixed QPS for a minute, comparing completions): minutes, not a fidelity check' },
  { name: "[sig-api-machinery] API priority and fairness should ensure that requests can't be drowned out (fairness)", file: 'apimachinery/flowcontrol.go', why: 'a load test (two clients at fixed QPS for a minute, comparing completions): minutes, not a fidelity check' },
  { name: '[sig-node] ConfigMap should be consumable via environment variable [NodeConformance] [Conformance]', file: 'common/node/configmap.go', why: 'runs a pod (needs a node)' },
  { name: '[sig-node] ConfigMap should be consumable via the environment [NodeConformance] [Conformance]', file: 'common/node/configmap.go', why: 'runs a pod' },
  { name: '[sig-storage] ConfigMap * (volume specs)', file: 'common/storage/configmap_volume.go', why: 'mount configmaps into running pods' },
  { name: '[sig-node] Secrets should be consumable from pods in env vars / via the environment', file: 'common/node/secrets.go', why: 'run pods' },
  { name: '[sig-storage] Secrets * (volume specs)', file: 'common/storage/secrets_volume.go', why: 'mount secrets into running pods' },
  { name: '[sig-api-machinery] Namespaces [Serial] should ensure that all pods are removed when a namespace is deleted [Conformance]', file: 'apimachinery/namespace.go', why: 'needs a running pod and a default ServiceAccount' },
  { name: '[sig-api-machinery] Namespaces [Serial] should ensure that all services are removed when a namespace is deleted [Conformance]', file: 'apimachinery/namespace.go', why: 'waits for the default ServiceAccount (ServiceAccount controller) whatever --e2e-verify-service-account says' },
  { name: '[sig-api-machinery] Namespaces [Serial] should always delete fast (ALL of 100 namespaces in 150 seconds) [Feature:ComprehensiveNamespaceDraining]', file: 'apimachinery/namespace.go', why: 'feature-gated variant of "delete fast enough"' },
  { name: '[sig-api-machinery] Servers with support for Table transformation should return pod details', file: 'apimachinery/table_conversion.go', why: 'creates a pod (pods not served)' },
  { name: '[sig-api-machinery] Servers with support for Table transformation should return chunks of table results for list calls', file: 'apimachinery/table_conversion.go', why: 'podtemplates (not served); the same paging is covered for configmaps by npm run fidelity' },
  { name: '[sig-api-machinery] Servers with support for Table transformation should return generic metadata details across all namespaces for nodes', file: 'apimachinery/table_conversion.go', why: 'needs at least one node' },
  { name: '[sig-api-machinery] Servers with support for API chunking *', file: 'apimachinery/chunking.go', why: 'podtemplates (not served); the compaction variant is [Slow] and needs etcd compaction' },
  { name: '[sig-api-machinery] ServerSideApply *', file: 'apimachinery/apply.go', why: 'deployments and pods (not served); "should work for CRDs" is run' },
  { name: '[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] [Flaky] kubectl explain works for CR with the same resource name as built-in object.', file: 'apimachinery/crd_publish_openapi.go', why: '[Flaky] upstream (kubernetes#65517): kubectl\'s disk discovery cache, filled by the specs run before it in the same HOME, hides the new short name ("the server doesn\'t have a resource type"); passes alone with a fresh HOME, here and on the reference' },
  { name: '[sig-api-machinery] CustomResourceConversionWebhook [Privileged:ClusterAdmin] *', file: 'apimachinery/crd_conversion_webhook.go', why: 'deploys the conversion webhook as a pod behind a service' },
  { name: '[sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] * (custom resource specs)', file: 'apimachinery/webhook.go', why: 'deploy the admission webhook as a pod behind a service' },
  { name: '[sig-api-machinery] CustomResourceValidationRules [Privileged:ClusterAdmin][Alpha][Feature:CustomResourceValidationExpressions] *', file: 'apimachinery/crd_validation_rules.go', why: 'alpha feature gate, off in 1.24 (and on the reference)' },
  { name: '[sig-api-machinery] Garbage collector * (replication controllers, deployments, cronjobs)', file: 'apimachinery/garbage_collector.go', why: 'kinds not served, and pods' },
  { name: '[sig-api-machinery] Generated clientset should create pods, set the deletionTimestamp and deletionGracePeriodSeconds of the pod', file: 'apimachinery/generated_clientset.go', why: 'pods' },
  { name: '[sig-cli] Kubectl client Kubectl get componentstatuses should get componentstatuses', file: 'kubectl/kubectl.go', why: 'componentstatuses (not served)' },
  { name: '[sig-cli] Kubectl client Kubectl cluster-info dump should check if cluster-info dump succeeds', file: 'kubectl/kubectl.go', why: 'dumps nodes, pods, events, deployments… (not served)' },
  { name: '[sig-cli] Kubectl client kubectl wait should ignore not found error with --for=delete', file: 'kubectl/kubectl.go', why: 'resolves the resource "pod" through discovery (not served)' },
  { name: '[sig-node] NodeLease *', file: 'common/node/node_lease.go', why: 'the kubelet\'s node leases in kube-node-lease (needs a node)' },
  { name: '[sig-cli] Kubectl client (every other spec)', file: 'kubectl/kubectl.go', why: 'replication controllers, pods, deployments, services with endpoints, nodes, quotas' },
];

/**
 * A ginkgo --focus regular expression matching exactly these specs. Ginkgo v1 matches it against
 * "[Top Level] <spec text>", so only the end is anchored.
 */
export function focusRegex(specs: Spec[]): string {
  const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return specs.map((s) => `${esc(s.name)}$`).join('|');
}
