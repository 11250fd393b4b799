/**
 * `--runtime-config` as kube-apiserver 1.24 reads it (cliflag.ConfigurationMap, then
 * resourceconfig.MergeAPIResourceConfigs over controlplane.DefaultAPIResourceConfigSource):
 *
 *   api/all|api/ga|api/beta|api/alpha=true|false   every known version of that stability
 *   <group>/<version>[=true|false]                 a version (no value: true); v1, api/v1 = core
 *   <group>/<version>/<resource>[=true|false]      one resource of a version
 *
 * Defaults: stable versions on; beta and alpha versions off, except the beta resources 1.24 still
 * served by default (events.k8s.io/v1beta1 events, storage.k8s.io/v1beta1 csistoragecapacities, …).
 * Keys naming groups kube-apiserver 1.24 knows but this server does not serve are accepted and have
 * no effect; unknown groups are a start-up error, as on kube.
 */
import type { KindDescriptor } from '../registry/rest/strategy.ts';

/** The group versions kube-apiserver 1.24 registers (controlplane, apiextensions, aggregator). */
const STABLE = ['admissionregistration.k8s.io/v1', '/v1', 'apps/v1', 'authentication.k8s.io/v1', 'authorization.k8s.io/v1', 'autoscaling/v1', 'autoscaling/v2', 'batch/v1', 'certificates.k8s.io/v1', 'coordination.k8s.io/v1', 'discovery.k8s.io/v1', 'events.k8s.io/v1', 'networking.k8s.io/v1', 'node.k8s.io/v1', 'policy/v1', 'rbac.authorization.k8s.io/v1', 'storage.k8s.io/v1', 'scheduling.k8s.io/v1', 'apiextensions.k8s.io/v1', 'apiregistration.k8s.io/v1'];
const BETA_OFF = ['autoscaling/v2beta1', 'autoscaling/v2beta2', 'batch/v1beta1', 'discovery.k8s.io/v1beta1', 'events.k8s.io/v1beta1', 'node.k8s.io/v1beta1', 'policy/v1beta1', 'storage.k8s.io/v1beta1', 'flowcontrol.apiserver.k8s.io/v1beta1', 'flowcontrol.apiserver.k8s.io/v1beta2'];
const ALPHA_OFF = ['internal.apiserver.k8s.io/v1alpha1', 'storage.k8s.io/v1alpha1', 'flowcontrol.apiserver.k8s.io/v1alpha1'];
/** legacyBetaEnabledByDefaultResources (kube 1.24). */
const LEGACY_BETA_RESOURCES = [
  'autoscaling/v2beta1/horizontalpodautoscalers',
  'autoscaling/v2beta2/horizontalpodautoscalers',
  'batch/v1beta1/cronjobs',
  'discovery.k8s.io/v1beta1/endpointslices',
  'events.k8s.io/v1beta1/events',
  'node.k8s.io/v1beta1/runtimeclasses',
  'policy/v1beta1/poddisruptionbudgets',
  'policy/v1beta1/podsecuritypolicies',
  'storage.k8s.io/v1beta1/csinodes',
  'storage.k8s.io/v1beta1/csistoragecapacities',
  'flowcontrol.apiserver.k8s.io/v1beta1/flowschemas',
  'flowcontrol.apiserver.k8s.io/v1beta1/prioritylevelconfigurations',
  'flowcontrol.apiserver.k8s.io/v1beta2/flowschemas',
  'flowcontrol.apiserver.k8s.io/v1beta2/prioritylevelconfigurations',
];

const MATCHERS: [string, (version: string) => boolean][] = [
  ['api/all', () => true],
  ['api/ga', (v) => /^v\d+$/.test(v)],
  ['api/beta', (v) => /^v\d+beta\d+$/.test(v)],
  ['api/alpha', (v) => /^v\d+alpha\d+$/.test(v)],
];

const versionOf = (gv: string): string => gv.slice(gv.lastIndexOf('/') + 1);
const groupOf = (gv: string): string => gv.slice(0, gv.lastIndexOf('/'));

/** serverstore.ResourceConfig: version switches and per-resource overrides. */
export class ResourceConfig {
  /** `<group>/<version>` (core: `/v1`) → enabled. */
  readonly versions = new Map<string, boolean>();
  /** `<group>/<version>/<resource>` → enabled (overrides its version). */
  readonly resources = new Map<string, boolean>();

  setVersion(gv: string, on: boolean): void {
    this.versions.set(gv, on);
    for (const k of [...this.resources.keys()]) if (k.startsWith(`${gv}/`) && k.split('/').length === gv.split('/').length + 1) this.resources.delete(k);
  }

  /** ResourceEnabled: an explicit resource switch, else its version's. */
  resourceEnabled(group: string, version: string, resource: string): boolean {
    const explicit = this.resources.get(`${group}/${version}/${resource}`);
    if (explicit !== undefined) return explicit;
    return this.versions.get(`${group}/${version}`) ?? false;
  }

  /** Whether `--runtime-config` governs this group version at all (kube-apiserver knows it). */
  knows(group: string, version: string): boolean {
    return this.versions.has(`${group}/${version}`);
  }
}

/** kube-apiserver 1.24's DefaultAPIResourceConfigSource. */
export function defaultResourceConfig(): ResourceConfig {
  const c = new ResourceConfig();
  for (const gv of STABLE) c.setVersion(gv, true);
  for (const gv of [...BETA_OFF, ...ALPHA_OFF]) c.setVersion(gv, false);
  for (const r of LEGACY_BETA_RESOURCES) c.resources.set(r, true);
  return c;
}

/** cliflag.ConfigurationMap.Set: `k=v,k2=v2`, a key without `=` has the value "". */
export function parseConfigurationMap(value: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const part of value.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) m.set(part.trim(), '');
    else m.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return m;
}

/** strconv.ParseBool. */
function parseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/**
 * The resource configuration a `--runtime-config` value gives. Throws an Error with kube's message
 * for what kube-apiserver refuses at start-up.
 */
export function runtimeConfig(value: string): ResourceConfig {
  const overrides = parseConfigurationMap(value);
  // options.Complete: the core group's keys (v1, api/v1, and resources under them) become "/v1".
  for (const [k, v] of [...overrides]) {
    if (k === 'v1' || k.startsWith('v1/') || k === 'api/v1' || k.startsWith('api/v1/')) {
      overrides.delete(k);
      overrides.set('/v1', v);
    }
    if (k === 'api/legacy') overrides.delete(k);
  }
  // APIEnablementOptions.Validate
  if (overrides.get('api/all') === 'false' && overrides.size === 1) throw new Error('invalid key with only api/all=false');
  const known = new Set([...STABLE, ...BETA_OFF, ...ALPHA_OFF]);
  const knownGroups = new Set([...known].map(groupOf));
  const unknown: string[] = [];
  for (const k of overrides.keys()) {
    if (MATCHERS.some(([m]) => m === k)) continue;
    const tokens = k.split('/');
    if (tokens.length !== 2 && tokens.length !== 3) throw new Error(`runtime-config invalid key ${k}`);
    if (!knownGroups.has(tokens[0]!)) unknown.push(tokens[0]!);
  }
  if (unknown.length) throw new Error(`unknown api groups ${unknown.join(',')}`);

  const c = defaultResourceConfig();
  for (const [flag, matches] of MATCHERS) {
    const v = overrides.get(flag);
    if (v === undefined) continue;
    if (v !== 'true' && v !== 'false') throw new Error(`invalid value ${flag}=${v}`);
    for (const gv of [...c.versions.keys()]) if (matches(versionOf(gv))) c.setVersion(gv, v === 'true');
  }
  const versionPrefs: [string, boolean][] = [];
  const resourcePrefs: [string, boolean][] = [];
  for (const [k, v] of overrides) {
    if (MATCHERS.some(([m]) => m === k)) continue;
    const tokens = k.split('/');
    const gv = `${tokens[0]}/${tokens[1]}`;
    if (!known.has(gv)) throw new Error(`group version ${gv.replace(/^\//, '')} that has not been registered`);
    const on = v === '' ? true : parseBool(v);
    if (on === undefined) throw new Error(`invalid value of ${k}: ${v}, err: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
    if (tokens.length === 2) versionPrefs.push([gv, on]);
    else {
      if (tokens[2]!.toLowerCase() !== tokens[2]) throw new Error(`invalid key ${k}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(tokens[2])}`);
      resourcePrefs.push([k, on]);
    }
  }
  for (const [gv, on] of versionPrefs) c.setVersion(gv, on);
  for (const [r, on] of resourcePrefs) c.resources.set(r, on);
  return c;
}

/**
 * The versions of a kind served under a resource configuration (the registry's version filter,
 * applied to every kind it serves, kinds added at run time included): those whose resource is
 * enabled. A kind with none left is not served (its paths answer 404, and it is absent from
 * discovery and OpenAPI, which are built from the served kinds). Stored objects of a disabled kind
 * stay in storage, untouched, and are served again once it is enabled. Kinds of group versions
 * kube-apiserver 1.24 does not know are always served.
 */
export function servedVersions(config: ResourceConfig): (kind: KindDescriptor) => string[] {
  // Group versions kube-apiserver does not know (a kind added to this server only, later CRDs)
  // are outside --runtime-config, as custom resources are on kube.
  return (k) => k.versions.filter((v) => !config.knows(k.group, v) || config.resourceEnabled(k.group, v, k.resource));
}
