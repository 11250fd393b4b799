/**
 * PodSecurity (plugin/pkg/admission/security/podsecurity over k8s.io/pod-security-admission
 * v0.24), a validating plugin on by default in 1.24, with kube-apiserver's default configuration
 * (privileged:latest for enforce, audit and warn; no exemptions) or the PodSecurityConfiguration of
 * --admission-control-config-file (pod-security-config.ts: defaults; usernames and namespaces
 * exempt before the namespace is read, runtime classes before a pod is evaluated, each with the
 * `pod-security.kubernetes.io/exempt` audit annotation):
 *   - Pods (create; update only when an image or a seccomp annotation changed; not the status,
 *     binding, eviction… subresources) are checked against their namespace's
 *     `pod-security.kubernetes.io/{enforce,audit,warn}[-version]` labels: refused with
 *     `violates PodSecurity "<level>:<version>": …`, warned with `would violate PodSecurity …`,
 *     and audit annotations `pod-security.kubernetes.io/{enforce-policy,audit-violations,error}`;
 *   - workload resources with a pod template (ReplicationController, PodTemplate, ReplicaSet,
 *     Deployment, StatefulSet, DaemonSet, Job, CronJob) are warned and audited, never refused;
 *   - Namespaces: invalid labels refused (422); an update tightening `enforce` warns about the
 *     namespace's existing pods that would violate it (also on a dry run).
 * Policy checks: pod-security-policy.ts.
 */
import type { KubeObject } from '../api/types.ts';
import { forbidden, invalid } from '../api/errors.ts';
import type { FieldError } from '../api/field-errors.ts';
import type { AdmissionAttributes, ValidatingPlugin } from './chain.ts';
import type { Storage } from '../storage/storage.ts';
import { currentPrefix } from '../storage/keys.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { type J, list, obj, s } from '../registry/core/pod-util.ts';
import { DEFAULT_POD_SECURITY_CONFIG, type PodSecurityConfig } from './pod-security-config.ts';
import {
  type LevelVersion, type Policy, compareLevels, evaluatePod, forbiddenDetail, forbiddenReason, levelVersionString, policyToEvaluate, sameLevelVersion, versionString,
} from './pod-security-policy.ts';

const ANNOTATION_PREFIX = 'pod-security.kubernetes.io/';
/** namespaceMaxPodsToCheck and namespacePodCheckTimeout of kube's default configuration. */
const MAX_PODS_TO_CHECK = 3000;
const POD_CHECK_TIMEOUT_MS = 1000;

const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** DefaultPodSpecExtractor: where each workload keeps its pod template. */
const TEMPLATES: Record<string, (o: KubeObject) => J | undefined> = {
  '/replicationcontrollers': (o) => obj(obj(o.spec)?.template),
  '/podtemplates': (o) => obj(o.template),
  'apps/replicasets': (o) => obj(obj(o.spec)?.template),
  'apps/deployments': (o) => obj(obj(o.spec)?.template),
  'apps/statefulsets': (o) => obj(obj(o.spec)?.template),
  'apps/daemonsets': (o) => obj(obj(o.spec)?.template),
  'batch/jobs': (o) => obj(obj(o.spec)?.template),
  'batch/cronjobs': (o) => obj(obj(obj(obj(o.spec)?.jobTemplate)?.spec)?.template),
};

/** isSignificantPodUpdate: images, seccomp annotations, containers added or removed. */
function significantUpdate(pod: KubeObject, old: KubeObject): boolean {
  const ann = pod.metadata.annotations ?? {};
  const oldAnn = old.metadata.annotations ?? {};
  if (ann['seccomp.security.alpha.kubernetes.io/pod'] !== oldAnn['seccomp.security.alpha.kubernetes.io/pod']) return true;
  const spec = obj(pod.spec) ?? {};
  const oldSpec = obj(old.spec) ?? {};
  const container = (c: J, o: J): boolean => s(c.image) !== s(o.image) || ann[`container.seccomp.security.alpha.kubernetes.io/${s(c.name)}`] !== oldAnn[`container.seccomp.security.alpha.kubernetes.io/${s(c.name)}`];
  for (const f of ['containers', 'initContainers']) {
    const now = list(spec[f]);
    const before = list(oldSpec[f]);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => container(c, before[i]!))) return true;
  }
  for (const c of list(spec.ephemeralContainers)) {
    const o = list(oldSpec.ephemeralContainers).find((x) => x.name === c.name);
    if (!o || container(c, o)) return true;
  }
  return false;
}

/** decoratePodWarnings + the sorting of EvaluatePodsInNamespace. */
function namespaceWarnings(namespace: string, enforce: LevelVersion, pods: KubeObject[], started: number, exemptRuntimeClass: (spec: J) => boolean): string[] {
  const counts = new Map<string, { name: string; count: number }>();
  const order: string[] = [];
  // prioritizePods: one pod per controller first, the controllers' other pods last.
  const seen = new Set<string>();
  const first: KubeObject[] = [];
  const rest: KubeObject[] = [];
  for (const p of pods) {
    if (exemptRuntimeClass(obj(p.spec) ?? {})) continue;
    const ref = (p.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (!ref) first.push(p);
    else if (seen.has(ref.uid)) rest.push(p);
    else {
      first.push(p);
      seen.add(ref.uid);
    }
  }
  const prioritized = [...first, ...rest];
  const total = prioritized.length;
  let checked = Math.min(total, MAX_PODS_TO_CHECK);
  for (let i = 0; i < checked; i++) {
    const p = prioritized[i]!;
    const r = evaluatePod(enforce, p.metadata as J, obj(p.spec) ?? {});
    if (!r.allowed) {
      const w = forbiddenReason(r);
      const name = p.metadata.name ?? '';
      const c = counts.get(w);
      if (!c) {
        counts.set(w, { name, count: 1 });
        order.push(w);
      } else {
        if (name < c.name) c.name = name;
        c.count++;
      }
    }
    if (Date.now() - started > POD_CHECK_TIMEOUT_MS) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  if (order.length) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
  const decorated = order.map((w) => {
    const c = counts.get(w)!;
    return c.count === 1 ? `${c.name}: ${w}` : c.count === 2 ? `${c.name} (and 1 other pod): ${w}` : `${c.name} (and ${c.count - 1} other pods): ${w}`;
  });
  decorated.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...warnings, ...decorated];
}

const fieldErrorsAggregate = (errs: FieldError[]): string => {
  const msgs = errs.map((e) => `${e.field}: Invalid value: ${JSON.stringify(e.value)}: ${e.detail}`);
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
};

/**
 * A Namespace's labels ({} when it has none) as last folded, or undefined when it does not exist:
 * an in-memory copy that follows the fold (kube's plugin reads a namespace informer), so a Pod
 * write costs no store read. The app passes the admission-webhook source's copy.
 */
export type NamespaceLabels = (name: string) => Record<string, string> | undefined;

/**
 * `storage`: the namespace's Pods a Namespace update checks; `namespaceLabels`: see NamespaceLabels;
 * `config`: the defaults and exemptions of --admission-control-config-file (pod-security-config.ts).
 */
export function podSecurity(storage: Storage, namespaceLabels: NamespaceLabels, config: PodSecurityConfig = DEFAULT_POD_SECURITY_CONFIG): ValidatingPlugin {
  const exempt = { usernames: new Set(config.exemptions.usernames), namespaces: new Set(config.exemptions.namespaces), runtimeClasses: new Set(config.exemptions.runtimeClasses) };
  const exemptRuntimeClass = (spec: J): boolean => !!s(spec.runtimeClassName) && exempt.runtimeClasses.has(s(spec.runtimeClassName));
  const policyOf = (labels: Record<string, string> | undefined) => policyToEvaluate(labels, config.defaults);
  /** The namespace or user exemption of a Pod or workload write (annotated `exempt`), checked before the namespace is read. */
  const exempted = (a: AdmissionAttributes): boolean => {
    const why = a.namespace && exempt.namespaces.has(a.namespace) ? 'namespace' : a.user.username && exempt.usernames.has(a.user.username) ? 'user' : undefined;
    if (why) annotate(a, { exempt: why });
    return why !== undefined;
  };
  async function podsOf(namespace: string): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    const view = await storage.view();
    try {
      const prefix = currentPrefix('', 'pods', namespace);
      for await (const [, b] of view.scan(prefix, `${prefix}\uffff`)) if (b.length) out.push(parseObject(b));
    } finally {
      await view.close();
    }
    return out;
  }

  const annotate = (a: AdmissionAttributes, annotations: Record<string, string>): void => {
    for (const [k, v] of Object.entries(annotations)) a.annotate?.(ANNOTATION_PREFIX + k, v);
  };

  /** EvaluatePod: enforce (pods only), audit, then warn when allowed. */
  function evaluate(a: AdmissionAttributes, policy: Policy, policyErrs: FieldError[], meta: J, spec: J, enforce: boolean): void {
    if (exemptRuntimeClass(spec)) {
      annotate(a, { exempt: 'runtimeClass' });
      return;
    }
    const annotations: Record<string, string> = {};
    if (policyErrs.length) annotations.error = `Failed to parse policy: ${fieldErrorsAggregate(policyErrs)}`;
    const results = new Map<string, ReturnType<typeof evaluatePod>>();
    const result = (lv: LevelVersion) => {
      const key = levelVersionString(lv);
      let r = results.get(key);
      if (!r) results.set(key, (r = evaluatePod(lv, meta, spec)));
      return r;
    };
    let denied: Error | undefined;
    if (enforce) {
      annotations['enforce-policy'] = levelVersionString(policy.enforce);
      const r = result(policy.enforce);
      if (!r.allowed) denied = forbidden({ group: a.kind.group, resource: a.kind.resource }, a.name, `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(r)}`);
    }
    const audit = result(policy.audit);
    if (!audit.allowed) annotations['audit-violations'] = `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${forbiddenDetail(audit)}`;
    if (!denied) {
      const warn = result(policy.warn);
      if (!warn.allowed) a.warn?.(`would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${forbiddenDetail(warn)}`);
    }
    annotate(a, annotations);
    if (denied) throw denied;
  }

  function validatePod(a: AdmissionAttributes): void {
    if (exempted(a)) return;
    const labels = namespaceLabels(a.namespace);
    if (labels === undefined) {
      annotate(a, { error: `Internal error occurred: failed to lookup namespace ${a.namespace}: namespace "${a.namespace}" not found` });
      throw forbidden({ group: '', resource: 'pods' }, a.name, `Internal error occurred: failed to lookup namespace ${a.namespace}`);
    }
    const { policy, errs } = policyOf(labels);
    if (errs.length === 0 && policy.enforce.level === 'privileged' && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') {
      annotate(a, { 'enforce-policy': 'privileged:latest' });
      return;
    }
    const pod = a.object!;
    if (a.operation === 'UPDATE' && a.oldObject && !significantUpdate(pod, a.oldObject)) return;
    evaluate(a, policy, errs, pod.metadata as J, obj(pod.spec) ?? {}, true);
  }

  function validateController(a: AdmissionAttributes, template: (o: KubeObject) => J | undefined): void {
    if (exempted(a)) return;
    const labels = namespaceLabels(a.namespace);
    if (labels === undefined) {
      annotate(a, { error: `failed to lookup namespace ${a.namespace}: namespace "${a.namespace}" not found` });
      return;
    }
    const { policy, errs } = policyOf(labels);
    if (errs.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    const t = template(a.object!);
    if (!t) return;
    evaluate(a, policy, errs, obj(t.metadata) ?? {}, obj(t.spec) ?? {}, false);
  }

  async function validateNamespace(a: AdmissionAttributes): Promise<void> {
    const ns = a.object!;
    const { policy, errs } = policyOf(ns.metadata.labels);
    const refuse = () => invalid('Namespace', '', a.name || ns.metadata.name || '', errs);
    if (a.operation === 'CREATE') {
      if (errs.length) throw refuse();
      return;
    }
    const old = policyOf(a.oldObject?.metadata.labels);
    if (errs.length && (old.errs.length === 0 || fieldErrorsAggregate(errs) !== fieldErrorsAggregate(old.errs))) throw refuse();
    const next = policy.enforce;
    const before = old.policy.enforce;
    if (sameLevelVersion(next, before) || next.level === 'privileged') return;
    if (versionString(next.version) === versionString(before.version) && compareLevels(next.level, before.level) < 1) return;
    if (exempt.namespaces.has(ns.metadata.name ?? '')) {
      annotate(a, { exempt: 'namespace' });
      return;
    }
    const started = Date.now();
    for (const w of namespaceWarnings(ns.metadata.name ?? '', next, await podsOf(ns.metadata.name ?? ''), started, exemptRuntimeClass)) a.warn?.(w);
  }

  return {
    name: 'PodSecurity',
    validate(a) {
      // Synchronous but for a Namespace update (AdmissionChain awaits only promises).
      if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || !a.object || a.view) return;
      if (a.kind.group === '' && a.kind.resource === 'namespaces') return a.subresource ? undefined : validateNamespace(a);
      if (a.kind.group === '' && a.kind.resource === 'pods') return IGNORED_POD_SUBRESOURCES.has(a.subresource) ? undefined : validatePod(a);
      const template = TEMPLATES[`${a.kind.group}/${a.kind.resource}`];
      if (!template || a.subresource) return;
      return validateController(a, template);
    },
  };
}
