/**
 * The internal core types (pkg/apis/core) as go-cmp sees them, derived from the v1 definitions of
 * the schemas (same fields, Go order) with the known differences, and `cmpDiff` on them: the diff
 * kube-apiserver 1.24 appends to the Pod ("pod updates may not change fields other than …"),
 * ephemeral container, PersistentVolume ("spec.persistentvolumesource is immutable after
 * creation") and PersistentVolumeClaim update messages. The go-cmp port itself is
 * internal/gocompat/cmp.ts.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cmpDiff as goCmpDiff, type GoField, type GoType } from '../../gocompat/cmp.ts';
import { generatedSource } from '../../schema/registry.ts';
import { type J, obj, withoutServiceAccountAlias } from './pod-util.ts';

const ACRONYMS: Record<string, string> = {
  dnsPolicy: 'DNSPolicy', dnsConfig: 'DNSConfig', os: 'OS', hostIPC: 'HostIPC', hostPID: 'HostPID', hostIP: 'HostIP', podIP: 'PodIP', podIPs: 'PodIPs', ip: 'IP',
  httpGet: 'HTTPGet', tcpSocket: 'TCPSocket', grpc: 'GRPC', tty: 'TTY', fsGroup: 'FSGroup', fsGroupChangePolicy: 'FSGroupChangePolicy', seLinuxOptions: 'SELinuxOptions',
  httpHeaders: 'HTTPHeaders', uid: 'UID', apiVersion: 'APIVersion', setHostnameAsFQDN: 'SetHostnameAsFQDN', hostIPs: 'HostIPs', gmsaCredentialSpecName: 'GMSACredentialSpecName',
  gmsaCredentialSpec: 'GMSACredentialSpec', gcePersistentDisk: 'GCEPersistentDisk', awsElasticBlockStore: 'AWSElasticBlockStore', cephfs: 'CephFS', storageos: 'StorageOS', fsType: 'FSType', readOnly: 'ReadOnly', iscsi: 'ISCSI', nfs: 'NFS', rbd: 'RBD', fc: 'FC', csi: 'CSI', targetWWNs: 'TargetWWNs', wwids: 'WWIDs',
};
Object.assign(ACRONYMS, { pdName: 'PDName', iqn: 'IQN', iscsiInterface: 'ISCSIInterface', chapAuthDiscovery: 'DiscoveryCHAPAuth', chapAuthSession: 'SessionCHAPAuth', diskURI: 'DataDiskURI', sslEnabled: 'SSLEnabled' });
/** Go names that differ from the JSON member in one type only. */
const TYPE_NAMES: Record<string, Record<string, string>> = {
  ...Object.fromEntries(['GlusterfsVolumeSource', 'GlusterfsPersistentVolumeSource'].map((t) => [t, { endpoints: 'EndpointsName' }])),
  ...Object.fromEntries(['RBDVolumeSource', 'RBDPersistentVolumeSource'].map((t) => [t, { monitors: 'CephMonitors', image: 'RBDImage', pool: 'RBDPool', user: 'RadosUser' }])),
};
const goName = (json: string, type = ''): string => TYPE_NAMES[type]?.[json] ?? ACRONYMS[json] ?? json.charAt(0).toUpperCase() + json.slice(1);

const DEF = 'io.k8s.api.core.v1.';

/** core.PersistentVolumeSource's fields (pkg/apis/core/types.go order). */
const PV_SOURCE_GO_ORDER = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'flexVolume', 'cinder', 'cephfs', 'fc', 'flocker', 'azureFile',
  'vsphereVolume', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'local', 'storageos', 'csi',
];
const memo = new Map<string, GoType>();

/**
 * Embedded structs of the internal types (`json:",inline"` in v1): parent → [Go name, type name,
 * JSON members it holds, or the members it leaves to the parent when `rest` is set].
 */
const EMBEDDED: Record<string, [string, string, string[], boolean?][]> = {
  Probe: [['ProbeHandler', 'ProbeHandler', ['exec', 'httpGet', 'tcpSocket', 'grpc']]],
  EphemeralContainer: [['EphemeralContainerCommon', 'EphemeralContainerCommon', ['targetContainerName'], true]],
  Volume: [['VolumeSource', 'VolumeSource', ['name'], true]],
  // Only diffed on its own (cmpDiff(…, 'PersistentVolumeSource')): its place among the spec's fields is not kept.
  PersistentVolumeSpec: [['PersistentVolumeSource', 'PersistentVolumeSource', PV_SOURCE_GO_ORDER]],
  ...Object.fromEntries(
    ['ConfigMapProjection', 'SecretProjection', 'ConfigMapVolumeSource', 'ConfigMapKeySelector', 'SecretKeySelector', 'ConfigMapEnvSource', 'SecretEnvSource'].map((k) => [k, [['LocalObjectReference', 'LocalObjectReference', ['name']]]]),
  ),
};

/** Fields that are plain values in the internal types but pointers in v1 (defaulted before validation). */
const INTERNAL_NOT_POINTER = new Set(['ServiceAccountTokenProjection.expirationSeconds']);

/** The internal core type behind a v1 definition (same fields, Go order), with the known differences. */
export function structType(def: string): GoType {
  const hit = memo.get(def);
  if (hit) return hit;
  const short = def.slice(DEF.length);
  const t: GoType = { k: 'struct', name: `core.${short}`, fields: [] };
  memo.set(def, t);
  const props = generatedSource().definition(def)?.properties ?? {};
  const embedded = (EMBEDDED[short] ?? []).map(([goField, typeName, listed, rest]): [string, string, string[]] => [goField, typeName, rest ? Object.keys(props).filter((m) => !listed.includes(m)) : listed]);
  const taken = new Set(embedded.flatMap(([, , members]) => members));
  const own = Object.entries(props).filter(([json]) => !taken.has(json));
  const embeddedFields = embedded.map(([goField, typeName, members]): GoField => {
    const inner: GoType = { k: 'struct', name: `core.${typeName}`, fields: members.filter((m) => props[m]).map((m) => ({ name: goName(m, typeName), json: m, type: () => propType(props[m]!) })) };
    return { name: goField, type: () => inner };
  });
  // An embedded struct comes first in every one of these types except Volume (Name, then VolumeSource).
  const ownFields = own.map(([json, p]): GoField => ({ name: goName(json, short), json, type: () => named(INTERNAL_NOT_POINTER.has(`${short}.${json}`) ? propType({ ...p, 'x-go': '' }) : propType(p), def, json) }));
  if (short === 'Volume') t.fields.push(...ownFields, ...embeddedFields);
  else t.fields.push(...embeddedFields, ...ownFields);
  if (short === 'PodSpec') adjustPodSpec(t);
  if (short === 'PodSecurityContext') {
    // Internal PodSecurityContext holds the host namespaces that v1 keeps in PodSpec.
    const hostFields = ['hostNetwork', 'hostPID', 'hostIPC'].map((j): GoField => ({ name: goName(j), json: j, type: () => ({ k: 'bool' }) }));
    t.fields.unshift(...hostFields, { name: 'ShareProcessNamespace', json: 'shareProcessNamespace', type: () => ({ k: 'ptr', elem: { k: 'bool' } }) });
  }
  return t;
}

/** core.PodSpec's field order (pkg/apis/core/types.go): host* and shareProcessNamespace live in SecurityContext, no serviceAccount. */
const POD_SPEC_ORDER = [
  'volumes', 'initContainers', 'containers', 'ephemeralContainers', 'restartPolicy', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'dnsPolicy', 'nodeSelector',
  'serviceAccountName', 'automountServiceAccountToken', 'nodeName', 'securityContext', 'imagePullSecrets', 'hostname', 'subdomain', 'setHostnameAsFQDN', 'affinity',
  'schedulerName', 'tolerations', 'hostAliases', 'priorityClassName', 'priority', 'preemptionPolicy', 'dnsConfig', 'readinessGates', 'runtimeClassName', 'overhead',
  'enableServiceLinks', 'topologySpreadConstraints', 'os',
];

function adjustPodSpec(t: Extract<GoType, { k: 'struct' }>): void {
  const byJson = new Map(t.fields.map((f) => [f.json, f]));
  t.fields = POD_SPEC_ORDER.map((j) => byJson.get(j)!).filter(Boolean);
}

/** definition → field → its Go type as reflect names it (generated/go/types.json). */
let goTypes: Record<string, Record<string, string>> | undefined;
const GO_TYPES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema', 'generated', 'go', 'types.json');

/**
 * A slice of a named string type prints with that type (`[]core.PersistentVolumeAccessMode`), the
 * internal package's name for what v1 names `[]v1.PersistentVolumeAccessMode`.
 */
function named(t: GoType, def: string, json: string): GoType {
  if (t.k !== 'slice' || t.elem.k !== 'string') return t;
  goTypes ??= JSON.parse(readFileSync(GO_TYPES, 'utf8')) as Record<string, Record<string, string>>;
  const go = goTypes[def]?.[json];
  const m = go && /^\[\]v1\.(\w+)$/.exec(go);
  return m ? { ...t, name: `[]core.${m[1]}` } : t;
}

interface Prop {
  $ref?: string;
  type?: string;
  items?: Prop;
  additionalProperties?: Prop | boolean;
  'x-go'?: string;
}

function propType(p: Prop): GoType {
  const code = p['x-go'] ?? '';
  const base = (): GoType => {
    if (p.$ref) {
      if (p.$ref.endsWith('.Quantity')) return { k: 'quantity' };
      if (p.$ref.endsWith('.IntOrString')) return { k: 'intstr' };
      if (p.$ref.endsWith('.Time') || p.$ref.endsWith('.MicroTime')) return { k: 'time' };
      if (p.$ref.startsWith(DEF)) return structType(p.$ref);
      return { k: 'struct', name: p.$ref.split('.').slice(-2).join('.'), fields: [] };
    }
    if (p.type === 'array') return { k: 'slice', name: '', elem: propType(p.items ?? {}) };
    if (p.type === 'object') {
      const elem = typeof p.additionalProperties === 'object' ? p.additionalProperties : { type: 'string' };
      // core.ResourceList (map[ResourceName]resource.Quantity): ResourceName is a Stringer (keys
      // print s"cpu"), and a map value is not addressable, so Quantity's pointer-receiver String()
      // is not used: go-cmp prints the struct.
      if (elem.$ref?.endsWith('.Quantity')) return { k: 'map', name: 'core.ResourceList', elem: { k: 'quantityStruct' }, stringerKeys: true };
      return { k: 'map', name: '', elem: propType(elem) };
    }
    if (p.type === 'integer' || p.type === 'number') return { k: 'int' };
    if (p.type === 'boolean') return { k: 'bool' };
    return { k: 'string' };
  };
  return code.startsWith('p') ? { k: 'ptr', elem: base() } : base();
}

/** A v1 PodSpec in the internal shape: the host namespaces move into the security context. */
export function internalPodSpec(spec: J): J {
  const { hostNetwork, hostPID, hostIPC, shareProcessNamespace, ...rest } = withoutServiceAccountAlias(spec);
  const sc = { ...(obj(spec.securityContext) ?? {}) };
  Object.assign(sc, { hostNetwork, hostPID, hostIPC, shareProcessNamespace });
  return { ...rest, securityContext: sc };
}

/**
 * cmp.Diff(old, new) of two values of the internal type behind a v1 definition ('PodSpec',
 * 'EphemeralContainer', 'PersistentVolumeClaimSpec'), given in their v1 JSON form; with
 * `embedded`, of the struct the definition embeds under that name (PersistentVolumeSpec's
 * 'PersistentVolumeSource'). '' when they are equal.
 */
export function cmpDiff(definition: string, oldV: J, newV: J, embedded?: string): string {
  let t = structType(DEF + definition);
  if (embedded) t = (t.k === 'struct' && t.fields.find((f) => f.name === embedded && f.json === undefined)?.type()) || t;
  const [x, y] = definition === 'PodSpec' ? [internalPodSpec(oldV), internalPodSpec(newV)] : [oldV, newV];
  return goCmpDiff(t, x, y);
}
