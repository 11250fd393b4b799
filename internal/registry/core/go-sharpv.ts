/**
 * Go's `%#v` of an internal core value given in its v1 JSON form, as field.Invalid prints the
 * value of ValidateImmutableField on a whole struct (a Job's `spec.template: Invalid value:
 * core.PodTemplateSpec{…}: field is immutable`). The types are cmpdiff.ts's (the internal core
 * structs derived from the schemas, Go field order); the Go type of each field is the generated
 * go/types.json's (`*int64`, `[]core.Container`, `core.ResourceList`).
 *
 * Pointers below the top print their type and an address (kube's are the process's; tests replace
 * them), nil ones `(*T)(nil)`, a nil *metav1.Time `<nil>`; nil slices and maps `T(nil)`; a
 * resource.Quantity in a map its int64Amount struct and the string ParseQuantity caches (cmp.ts's
 * int64Quantity); one Go keeps as an infinite decimal is approximated as zero.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GoField, GoType } from '../../gocompat/cmp.ts';
import { int64Quantity } from '../../gocompat/cmp.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { internalPodSpec, structType } from './cmpdiff.ts';
import { type J, obj } from './pod-util.ts';

const DEF = 'io.k8s.api.core.v1.';
const GO_POINTER = '0xc000000000';

let goTypes: Record<string, Record<string, string>> | undefined;
const GO_TYPES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema', 'generated', 'go', 'types.json');

/** The Go type of a field of a core struct, in the internal package (`v1.X` → `core.X`). */
function fieldGoType(structName: string, json: string | undefined): string {
  goTypes ??= JSON.parse(readFileSync(GO_TYPES, 'utf8')) as Record<string, Record<string, string>>;
  const def = DEF + structName.replace(/^core\./, '');
  const go = json ? goTypes[def]?.[json] : undefined;
  return (go ?? '').replace(/\bv1\./g, 'core.');
}

const has = (v: unknown): boolean => v !== undefined && v !== null;

/** `%#v` of a resource.Quantity value (not through a pointer: fmt prints its fields). */
function quantity(v: unknown): string {
  const str = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '0';
  const parts = int64Quantity(str);
  const i = parts ? `resource.int64Amount{value:${parts.value}, scale:${parts.scale}}` : 'resource.int64Amount{value:0, scale:0}';
  return `resource.Quantity{i:${i}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${goQuote(parts?.cached ? str : '')}, Format:${goQuote(parts?.format ?? 'DecimalSI')}}`;
}

const GO_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** time.Time's GoString (a metav1.Time embeds it); the zero time when absent. */
function goTime(v: unknown): string {
  const d = typeof v === 'string' ? new Date(v) : undefined;
  if (!d || Number.isNaN(d.getTime())) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  return `time.Date(${d.getUTCFullYear()}, time.${GO_MONTHS[d.getUTCMonth()]}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, 0, time.Local)`;
}

/** core.VolumeSource's field order (pkg/apis/core/types.go; v1 has Quobyte elsewhere). */
const VOLUME_SOURCE_ORDER = [
  'HostPath', 'EmptyDir', 'GCEPersistentDisk', 'AWSElasticBlockStore', 'GitRepo', 'Secret', 'NFS', 'ISCSI', 'Glusterfs', 'PersistentVolumeClaim', 'RBD', 'Quobyte', 'FlexVolume',
  'Cinder', 'CephFS', 'Flocker', 'DownwardAPI', 'FC', 'AzureFile', 'ConfigMap', 'VsphereVolume', 'AzureDisk', 'PhotonPersistentDisk', 'Projected', 'PortworxVolume', 'ScaleIO',
  'StorageOS', 'CSI', 'Ephemeral',
];

/** A struct's fields in the internal type's order. */
function fieldsOf(t: Extract<GoType, { k: 'struct' }>): GoField[] {
  if (t.name !== 'core.VolumeSource') return t.fields;
  const rank = (f: GoField): number => VOLUME_SOURCE_ORDER.indexOf(f.name);
  return [...t.fields].sort((a, b) => rank(a) - rank(b));
}

/**
 * `%#v` of `v` of type `t` whose Go type reads `goType` (a field's, or its slice or map element's);
 * `owner`: the struct whose definition names the fields' Go types (an embedded struct's parent).
 */
function print(t: GoType, v: unknown, goType: string, owner?: string): string {
  switch (t.k) {
    case 'bool':
      return String(v === true);
    case 'int':
      return String(typeof v === 'number' ? v : 0);
    case 'string':
      return goQuote(typeof v === 'string' ? v : '');
    case 'quantity':
    case 'quantityStruct':
      return quantity(v);
    case 'time':
      return goTime(v);
    case 'intstr':
      return typeof v === 'string' ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}` : `intstr.IntOrString{Type:0, IntVal:${typeof v === 'number' ? v : 0}, StrVal:""}`;
    case 'ptr':
      if (goType === '*core.Time' || goType === '*v1.Time') return has(v) ? goTime(v) : '<nil>';
      return `(${goType || (t.elem.k === 'struct' ? `*${t.elem.name}` : '*')})(${has(v) ? GO_POINTER : 'nil'})`;
    case 'slice': {
      const name = goType || t.name;
      if (!Array.isArray(v)) return `${name}(nil)`;
      const elemType = name.replace(/^\[\]/, '');
      return `${name}{${v.map((x) => print(t.elem, x, elemType)).join(', ')}}`;
    }
    case 'map': {
      const name = goType || t.name || 'map[string]string';
      const m = obj(v);
      if (!m) return `${name}(nil)`;
      const elemType = /^map\[[^\]]+\](.+)$/.exec(name)?.[1] ?? '';
      return `${name}{${Object.keys(m)
        .sort()
        .map((k) => `${goQuote(k)}:${print(t.elem, m[k], elemType)}`)
        .join(', ')}}`;
    }
    case 'struct':
      return `${t.name}{${fieldsOf(t).map((f) => `${f.name}:${printField(owner ?? t.name, f, v)}`).join(', ')}}`;
  }
}

function printField(structName: string, f: GoField, parent: unknown): string {
  const ft = f.type();
  // An embedded struct reads its parent's members.
  if (f.json === undefined) return print(ft, parent, ft.k === 'struct' ? ft.name : '', structName);
  return print(ft, obj(parent)?.[f.json], fieldGoType(structName, f.json) || (ft.k === 'struct' ? ft.name : ''));
}

/** `%#v` of a v1.ObjectMeta (a template's: the server-set fields are empty). */
function objectMeta(m: J): string {
  const strs = (v: unknown): string => (Array.isArray(v) ? `[]string{${v.map((x) => goQuote(String(x))).join(', ')}}` : '[]string(nil)');
  const map = (v: unknown): string => {
    const o = obj(v);
    return o ? `map[string]string{${Object.keys(o).sort().map((k) => `${goQuote(k)}:${goQuote(String(o[k]))}`).join(', ')}}` : 'map[string]string(nil)';
  };
  const s = (k: string): string => goQuote(typeof m[k] === 'string' ? m[k] : '');
  const refs = Array.isArray(m.ownerReferences) ? `[]v1.OwnerReference{${m.ownerReferences.map(() => 'v1.OwnerReference{…}').join(', ')}}` : '[]v1.OwnerReference(nil)';
  return (
    `v1.ObjectMeta{Name:${s('name')}, GenerateName:${s('generateName')}, Namespace:${s('namespace')}, SelfLink:${s('selfLink')}, UID:${s('uid')}, ` +
    `ResourceVersion:${s('resourceVersion')}, Generation:${typeof m.generation === 'number' ? m.generation : 0}, CreationTimestamp:${goTime(m.creationTimestamp)}, ` +
    `DeletionTimestamp:${has(m.deletionTimestamp) ? goTime(m.deletionTimestamp) : '<nil>'}, DeletionGracePeriodSeconds:(*int64)(${has(m.deletionGracePeriodSeconds) ? GO_POINTER : 'nil'}), ` +
    `Labels:${map(m.labels)}, Annotations:${map(m.annotations)}, OwnerReferences:${refs}, Finalizers:${strs(m.finalizers)}, ZZZ_DeprecatedClusterName:${s('clusterName')}, ` +
    `ManagedFields:[]v1.ManagedFieldsEntry(nil)}`
  );
}

/** `%#v` of a core.PodTemplateSpec given as a v1 PodTemplateSpec (JSON). */
export function goSharpVPodTemplateSpec(template: J): string {
  const spec = internalPodSpec(obj(template.spec) ?? {});
  return `core.PodTemplateSpec{ObjectMeta:${objectMeta(obj(template.metadata) ?? {})}, Spec:${print(structType(`${DEF}PodSpec`), spec, 'core.PodSpec')}}`;
}
