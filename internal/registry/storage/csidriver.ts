/**
 * CSIDriver (storage.k8s.io/v1, cluster-scoped), after Kubernetes 1.24.17: SetDefaults_CSIDriver
 * (pkg/apis/storage/v1/defaults.go), ValidateCSIDriver / ValidateCSIDriverUpdate
 * (pkg/apis/storage/validation), pkg/registry/storage/csidriver/strategy.go (gated fields,
 * generation) and printCSIDriver.
 *
 * Gates (as kube reads utilfeature): CSIInlineVolume (volumeLifecycleModes: defaulted, else
 * dropped) and CSIVolumeFSGroupPolicy (fsGroupPolicy; GA and locked on in 1.24).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, invalid, notSupported, required } from '../../api/field-errors.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import type { KindDescriptor, Strategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { GO_NIL, arr, goStrings, obj, specOf, str } from './helpers.ts';
import { semanticEqual } from '../../gocompat/equal.ts';

const SUPPORTED_FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
/** validateTokenRequests' bounds: 10 minutes and 2^32 seconds. */
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const unset = (v: unknown): boolean => v === undefined || v === null;

/** SetDefaults_CSIDriver under the given gates. */
export function defaultCSIDriver(o: KubeObject, gates: FeatureGates = DEFAULT_GATES): void {
  const s = specOf(o);
  if (unset(s.attachRequired)) s.attachRequired = true;
  if (unset(s.podInfoOnMount)) s.podInfoOnMount = false;
  if (unset(s.storageCapacity)) s.storageCapacity = false;
  if (unset(s.fsGroupPolicy) && gates.enabled('CSIVolumeFSGroupPolicy')) s.fsGroupPolicy = 'ReadWriteOnceWithFSType';
  if (arr(s.volumeLifecycleModes).length === 0 && gates.enabled('CSIInlineVolume')) s.volumeLifecycleModes = ['Persistent'];
  if (unset(s.requiresRepublish)) s.requiresRepublish = false;
}

/** validateTokenRequests: audiences unique, expirationSeconds within [10 minutes, 2^32 s]. */
function validateTokenRequests(reqs: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const audiences = new Set<string>();
  arr(reqs).forEach((r, i) => {
    const path = p.index(i);
    const audience = str(obj(r).audience);
    if (audiences.has(audience)) {
      errs.push(duplicate(path.child('audience'), audience));
      return;
    }
    audiences.add(audience);
    const exp = obj(r).expirationSeconds;
    if (typeof exp !== 'number') return;
    if (exp < MIN_EXPIRATION_SECONDS) errs.push(invalid(path.child('expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
    if (exp > MAX_EXPIRATION_SECONDS) errs.push(invalid(path.child('expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

/** validateCSIDriverSpec (kube names attachRequired's path `spec.attachedRequired`). */
export function validateCSIDriverSpec(o: KubeObject): FieldError[] {
  const s = obj(o.spec);
  const p = new FieldPath('spec');
  const errs: FieldError[] = [];
  if (unset(s.attachRequired)) errs.push(required(p.child('attachedRequired'), ''));
  if (unset(s.podInfoOnMount)) errs.push(required(p.child('podInfoOnMount'), ''));
  if (unset(s.storageCapacity)) errs.push(required(p.child('storageCapacity'), ''));
  if (!unset(s.fsGroupPolicy) && !SUPPORTED_FS_GROUP_POLICIES.includes(str(s.fsGroupPolicy))) {
    errs.push(notSupported(p.child('fsGroupPolicy'), str(s.fsGroupPolicy), SUPPORTED_FS_GROUP_POLICIES));
  }
  errs.push(...validateTokenRequests(s.tokenRequests, p.child('tokenRequests')));
  for (const m of arr(s.volumeLifecycleModes)) {
    if (!LIFECYCLE_MODES.includes(str(m))) errs.push(notSupported(p.child('volumeLifecycleModes'), str(m), LIFECYCLE_MODES));
  }
  return errs;
}

/** ValidateImmutableField: Invalid with the new value when it is not semantically the old one. */
function immutable(n: unknown, o: unknown, p: FieldPath, shown: unknown): FieldError[] {
  return semanticEqual(n, o) ? [] : [invalid(p, shown, FIELD_IMMUTABLE)];
}

/** ValidateCSIDriverUpdate minus ObjectMeta: the spec, its immutable fields, tokenRequests again. */
export function validateCSIDriverUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const ns = obj(n.spec);
  const os = obj(o.spec);
  const p = new FieldPath('spec');
  const errs = validateCSIDriverSpec(n);
  errs.push(...immutable(ns.attachRequired, os.attachRequired, p.child('attachedRequired'), ns.attachRequired ?? GO_NIL));
  errs.push(...immutable(ns.fsGroupPolicy, os.fsGroupPolicy, p.child('fsGroupPolicy'), ns.fsGroupPolicy ?? GO_NIL));
  errs.push(...immutable(ns.podInfoOnMount, os.podInfoOnMount, p.child('podInfoOnMount'), ns.podInfoOnMount ?? GO_NIL));
  // %#v of the []storage.VolumeLifecycleMode.
  errs.push(...immutable(ns.volumeLifecycleModes, os.volumeLifecycleModes, p.child('volumeLifecycleModes'), new GoValue(goStrings(ns.volumeLifecycleModes, '[]storage.VolumeLifecycleMode'))));
  errs.push(...validateTokenRequests(ns.tokenRequests, p.child('tokenRequests')));
  return errs;
}

/** The strategy under the given gates. */
export function csiDriverStrategy(gates: FeatureGates = DEFAULT_GATES): Strategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    defaults: (o) => defaultCSIDriver(o, gates),
    prepareForCreate(o) {
      const s = specOf(o);
      if (!gates.enabled('CSIInlineVolume')) delete s.volumeLifecycleModes;
      if (!gates.enabled('CSIVolumeFSGroupPolicy')) delete s.fsGroupPolicy;
    },
    prepareForUpdate(n, o) {
      const ns = specOf(n);
      const os = obj(o.spec);
      if (unset(os.volumeLifecycleModes) && !gates.enabled('CSIInlineVolume')) delete ns.volumeLifecycleModes;
      if (unset(os.fsGroupPolicy) && !gates.enabled('CSIVolumeFSGroupPolicy')) delete ns.fsGroupPolicy;
      // Generation counts changes of what kubelet republishes (the store keeps none by itself).
      const oldGen = o.metadata.generation;
      if (!semanticEqual(os.tokenRequests, ns.tokenRequests) || !semanticEqual(os.requiresRepublish, ns.requiresRepublish)) {
        n.metadata.generation = (oldGen ?? 0) + 1;
      } else if (oldGen !== undefined) n.metadata.generation = oldGen;
    },
    validate: validateCSIDriverSpec,
    validateUpdate: validateCSIDriverUpdate,
  };
}

const col = (name: string, type: TableColumn['type'], description: string): TableColumn => ({ name, type, description, priority: 0 });

const bool = (v: unknown, dflt: boolean): boolean => (typeof v === 'boolean' ? v : dflt);

/** printCSIDriver. */
export const csiDriverTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    col("AttachRequired", "boolean", "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable."),
    col("PodInfoOnMount", "boolean", "If set to true, podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations. If set to false, pod information will not be passed on mount. Default is false. The CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext. The following VolumeConext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field is immutable."),
    col("StorageCapacity", "boolean", "If set to true, storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable."),
    col("TokenRequests", "string", "TokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically."),
    col("RequiresRepublish", "boolean", "RequiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container."),
    col("Modes", "string", "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism. The other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume. For more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future. This field is beta.\n\nThis field is immutable."),
    AGE_COLUMN,
  ],
  cells: (o) => {
    const s = obj(o.spec);
    const modes = arr(s.volumeLifecycleModes).map(str).join(',');
    const tokens = Array.isArray(s.tokenRequests) ? s.tokenRequests.map((t) => str(obj(t).audience)).join(',') : '<unset>';
    return [
      o.metadata.name ?? '',
      bool(s.attachRequired, true),
      bool(s.podInfoOnMount, false),
      bool(s.storageCapacity, false),
      tokens,
      bool(s.requiresRepublish, false),
      modes || '<none>',
      creationTimestampCell(o),
    ];
  },
};

/** The descriptor under the given gates. */
function csiDriverKindFor(gates: FeatureGates): KindDescriptor {
  return {
    group: 'storage.k8s.io',
    versions: ['v1'],
    resource: 'csidrivers',
    singular: 'csidriver',
    kind: 'CSIDriver',
    listKind: 'CSIDriverList',
    namespaced: false,
    shortNames: [],
    strategy: csiDriverStrategy(gates),
    table: csiDriverTable,
    deleteReturns: 'Object',
    forOptions: (options) => csiDriverKindFor(options.featureGates ?? DEFAULT_GATES),
  };
}

/** storage.k8s.io/v1 csidrivers under 1.24's default gates; `forOptions` rebuilds it for others. */
export const csiDriverKind: KindDescriptor = csiDriverKindFor(DEFAULT_GATES);
