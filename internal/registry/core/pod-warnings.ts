/**
 * The `Warning` headers kube-apiserver 1.24 adds for a Pod spec (pkg/api/pod/warnings.go
 * warningsForPodSpecAndMeta): deprecated node labels in selectors, affinity and topology spread,
 * deprecated annotations, deprecated volume plugins, duplicate hostAliases / imagePullSecrets /
 * volumes / env names, empty imagePullSecret names, fractional byte quantities, and seccomp
 * annotations without the field. A Pod is checked on create only (GetWarningsForPod); every
 * workload checks its template under its own field path (GetWarningsForPodTemplate), see
 * `templateWarnings`.
 */
import type { KubeObject } from '../../api/types.ts';
import { FieldPath } from '../../api/field-errors.ts';
import { canonicalQuantity } from '../../decode/quantity.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { quantityValue } from './volumes/quantity.ts';
import { containersWithPath } from './pod-validation.ts';
import { type J, list, obj, s } from './pod-util.ts';

const DEPRECATED_NODE_LABELS: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
};

const DEPRECATED_ANNOTATIONS: [string, string][] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

const DEPRECATED_VOLUMES: [string, string][] = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, support removal is planned in v1.26'],
  ['storageOS', 'deprecated in v1.22, support removal is planned in v1.26'],
  ['quobyte', 'deprecated in v1.22, support removal is planned in v1.26'],
];

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const SECCOMP_MESSAGE = 'deprecated since v1.19, non-functional in v1.25+; use the "seccompProfile" field instead';

/** Go's %q. */
const q = goQuote;

/** A quantity whose MilliValue() (rounded up) is not whole units: its String(), else undefined. */
function fractional(v: unknown): string | undefined {
  const value = quantityValue(v);
  if (!value) return undefined;
  const scaled = value.n * 1000n;
  const d = 10n ** BigInt(value.s);
  // MilliValue rounds away from zero; a negative quantity fails validation before this runs.
  const milli = scaled >= 0n ? (scaled + d - 1n) / d : scaled / d;
  return milli % 1000n === 0n ? undefined : canonicalQuantity(String(v));
}

/** Every warning for `spec`/`meta` under `base` (the empty path for a Pod itself). */
function warningsForPodSpecAndMeta(base: FieldPath, spec: J, meta: J): string[] {
  const warnings: string[] = [];
  const sp = base.child('spec');
  for (const k of Object.keys(obj(spec.nodeSelector) ?? {})) {
    const msg = DEPRECATED_NODE_LABELS[k];
    if (msg) warnings.push(`${sp.child('nodeSelector').key(k)}: ${msg}`);
  }
  const nodeAffinity = obj(obj(spec.affinity)?.nodeAffinity);
  if (nodeAffinity) {
    const required = obj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution);
    const rp = sp.child('affinity').child('nodeAffinity');
    list(required?.nodeSelectorTerms).forEach((t, i) =>
      list(t.matchExpressions).forEach((e, j) => {
        const msg = DEPRECATED_NODE_LABELS[s(e.key)];
        if (msg) warnings.push(`${rp.child('requiredDuringSchedulingIgnoredDuringExecution').child('nodeSelectorTerms').index(i).child('matchExpressions').index(j).child('key')}: ${s(e.key)} is ${msg}`);
      }),
    );
    list(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
      list(obj(t.preference)?.matchExpressions).forEach((e, j) => {
        const msg = DEPRECATED_NODE_LABELS[s(e.key)];
        if (msg) warnings.push(`${rp.child('preferredDuringSchedulingIgnoredDuringExecution').index(i).child('preference').child('matchExpressions').index(j).child('key')}: ${s(e.key)} is ${msg}`);
      }),
    );
  }
  list(spec.topologySpreadConstraints).forEach((t, i) => {
    const msg = DEPRECATED_NODE_LABELS[s(t.topologyKey)];
    if (msg) warnings.push(`${sp.child('topologySpreadConstraints').index(i).child('topologyKey')}: ${s(t.topologyKey)} is ${msg}`);
  });

  const annotations = obj(meta.annotations) ?? {};
  const ap = base.child('metadata').child('annotations');
  for (const [key, msg] of DEPRECATED_ANNOTATIONS) if (key in annotations) warnings.push(`${ap.key(key)}: ${msg}`);

  const volumes = list(spec.volumes);
  volumes.forEach((v, i) => {
    for (const [plugin, msg] of DEPRECATED_VOLUMES) if (obj(v[plugin])) warnings.push(`${sp.child('volumes').index(i).child(plugin)}: ${msg}`);
  });

  /** Each later entry whose `key` repeats an earlier one: `<path>[i].<field>: duplicate <what> "v"`. */
  const duplicates = (items: J[], p: FieldPath, field: string, what: string): void => {
    if (items.length < 2) return;
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const v = s(item[field]);
      if (seen.has(v)) warnings.push(`${p.index(i).child(field)}: duplicate ${what} ${q(v)}`);
      else seen.add(v);
    });
  };
  duplicates(list(spec.hostAliases), sp.child('hostAliases'), 'ip', 'ip');
  const pullSecrets = list(spec.imagePullSecrets);
  duplicates(pullSecrets, sp.child('imagePullSecrets'), 'name', 'name');
  pullSecrets.forEach((item, i) => {
    if (!s(item.name)) warnings.push(`${sp.child('imagePullSecrets').index(i).child('name')}: invalid empty name ${q(s(item.name))}`);
  });
  duplicates(volumes, sp.child('volumes'), 'name', 'name');

  const fractionalWarning = (resources: J | undefined, p: FieldPath, name: string): void => {
    const v = resources?.[name];
    const text = v === undefined ? undefined : fractional(v);
    if (text !== undefined) warnings.push(`${p.key(name)}: fractional byte value ${q(text)} is invalid, must be an integer`);
  };
  fractionalWarning(obj(spec.overhead), sp.child('overhead'), 'memory');
  fractionalWarning(obj(spec.overhead), sp.child('overhead'), 'ephemeral-storage');

  if (!obj(obj(spec.securityContext)?.seccompProfile) && SECCOMP_POD_ANNOTATION in annotations) {
    warnings.push(`${ap.key(SECCOMP_POD_ANNOTATION)}: ${SECCOMP_MESSAGE}`);
  }

  for (const [c, cp] of containersWithPath(spec, sp)) {
    const key = SECCOMP_CONTAINER_PREFIX + s(c.name);
    if (!obj(obj(c.securityContext)?.seccompProfile) && key in annotations) warnings.push(`${ap.key(key)}: ${SECCOMP_MESSAGE}`);
    const resources = obj(c.resources);
    const rp = cp.child('resources');
    fractionalWarning(obj(resources?.limits), rp.child('limits'), 'memory');
    fractionalWarning(obj(resources?.requests), rp.child('requests'), 'memory');
    fractionalWarning(obj(resources?.limits), rp.child('limits'), 'ephemeral-storage');
    fractionalWarning(obj(resources?.requests), rp.child('requests'), 'ephemeral-storage');
    duplicates(list(c.env), cp.child('env'), 'name', 'name');
  }
  return warnings;
}

/** GetWarningsForPod: a Pod's warnings (kube checks them on create only). */
export function podWarnings(pod: KubeObject): string[] {
  return warningsForPodSpecAndMeta(new FieldPath(), obj(pod.spec) ?? {}, pod.metadata as J);
}

/** GetWarningsForPodTemplate: the warnings of a PodTemplateSpec at `path` (none when absent). */
export function templateWarnings(path: FieldPath, template: unknown): string[] {
  const t = obj(template);
  if (!t) return [];
  return warningsForPodSpecAndMeta(path, obj(t.spec) ?? {}, obj(t.metadata) ?? {});
}

/** The field path of a template as kube names it (`spec.template`, `template`, …). */
export const templatePath = (...names: string[]): FieldPath => names.reduce((p, n) => p.child(n), new FieldPath());

/**
 * WarningsOnCreate / WarningsOnUpdate of a workload strategy: the template's warnings on create,
 * and on an update that changed the generation (kube's check: a status-only or metadata-only
 * write does not repeat them).
 */
export function workloadTemplateWarnings(path: FieldPath, templateOf: (o: KubeObject) => unknown): (o: KubeObject, old?: KubeObject) => string[] {
  return (o, old) => (old && o.metadata.generation === old.metadata.generation ? [] : templateWarnings(path, templateOf(o)));
}
