/**
 * Which webhooks a request calls (kube's generic.Webhook.ShouldCallHook with rules.Matcher,
 * namespace.Matcher and object.Matcher, apiserver 1.24). Pure apart from the namespace lookup,
 * which the caller supplies.
 */
import type { AdmissionAttributes } from '../chain.ts';
import type { KubeObject } from '../../api/types.ts';
import { ApiError, internalError } from '../../api/errors.ts';
import type { LabelSelector } from '../../selectors/label-selector.ts';
import type { RuleWithOperations, Webhook } from './source.ts';

/** The resource (group, version, plural) a request addresses, or one equivalent to it. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** What a webhook is called with: the resource/kind it matched (maybe an equivalent one). */
export interface WebhookInvocation {
  webhook: Webhook;
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
}

/** Another version (or group) serving the same objects: matchPolicy Equivalent's candidates. */
export interface EquivalentResources {
  /** Every resource serving the same stored objects as `gvr` (including itself), kube's order. */
  equivalents(gvr: GroupVersionResource, subresource: string): GroupVersionResource[];
  kindFor(gvr: GroupVersionResource, subresource: string): GroupVersionKind | undefined;
}

/** Looks up a namespace's labels: undefined when it does not exist. */
export type NamespaceLabels = (name: string) => Record<string, string> | undefined;

const exactOrWildcard = (items: string[], requested: string): boolean => items.some((i) => i === '*' || i === requested);

/** The request's resource, in the version it addressed. */
export function requestResource(a: AdmissionAttributes): GroupVersionResource {
  return { group: a.kind.group, version: a.version ?? a.kind.versions[0], resource: a.kind.resource };
}

/** The kind of the request's objects: the resource's in the version addressed, or its view's (a scale's Scale). */
export function requestKind(a: AdmissionAttributes): GroupVersionKind {
  return a.view ? a.view.kind : { group: a.kind.group, version: a.version ?? a.kind.versions[0], kind: a.kind.kind };
}

/** rules.Matcher.Matches for one rule and a request addressing `gvr`. */
export function ruleMatches(rule: RuleWithOperations, a: AdmissionAttributes, gvr: GroupVersionResource): boolean {
  const isNamespace = gvr.group === '' && gvr.version === 'v1' && gvr.resource === 'namespaces';
  const scope = rule.scope === '*' || !rule.scope ? true : rule.scope === 'Namespaced' ? !isNamespace && a.namespace !== '' : rule.scope === 'Cluster' ? isNamespace || a.namespace === '' : false;
  if (!scope) return false;
  if (!rule.operations.some((op) => op === '*' || op === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, gvr.group) || !exactOrWildcard(rule.apiVersions, gvr.version)) return false;
  return rule.resources.some((rs) => {
    const slash = rs.indexOf('/');
    const res = slash < 0 ? rs : rs.slice(0, slash);
    const sub = slash < 0 ? '' : rs.slice(slash + 1);
    return (res === '*' || res === gvr.resource) && (sub === '*' || sub === a.subresource);
  });
}

/** rules.IsWebhookConfigurationResource: webhook configurations are never sent to webhooks. */
export function isWebhookConfigurationResource(a: AdmissionAttributes): boolean {
  return a.kind.group === 'admissionregistration.k8s.io' && (a.kind.kind === 'ValidatingWebhookConfiguration' || a.kind.kind === 'MutatingWebhookConfiguration');
}

const labelsOf = (o: KubeObject | null): Record<string, string> | undefined => (o ? o.metadata?.labels ?? {} : undefined);

/**
 * namespace.Matcher.MatchNamespaceSelector: true, false, or the error to answer. Cluster-scoped
 * objects always match (except Namespaces, matched on their own labels); a Namespace being
 * created or updated is matched on the labels it will have.
 */
function matchNamespaceSelector(w: Webhook, a: AdmissionAttributes, gvr: GroupVersionResource, namespaces: NamespaceLabels): boolean | ApiError {
  const isNamespaces = gvr.resource === 'namespaces' && gvr.group === '';
  if (!a.namespace && !isNamespaces) return true;
  if (w.namespaceSelector instanceof Error) return internalError(w.namespaceSelector.message);
  if (w.namespaceSelector.empty()) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespaces && !a.subresource && (a.operation === 'CREATE' || a.operation === 'UPDATE')) labels = labelsOf(a.object);
  else {
    // A Namespace's own path names it (the request's namespace is the object's name).
    const name = isNamespaces ? a.name : a.namespace;
    labels = namespaces(name);
    if (labels === undefined) return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `namespaces "${name}" not found`, reason: 'NotFound', details: { name, kind: 'namespaces' }, code: 404 });
  }
  return (w.namespaceSelector as LabelSelector).matches(labels);
}

/** object.Matcher.MatchObjectSelector: the new or the old object's labels match. */
function matchObjectSelector(w: Webhook, a: AdmissionAttributes): boolean | ApiError {
  if (w.objectSelector instanceof Error) return internalError(w.objectSelector.message);
  const sel = w.objectSelector;
  if (sel.empty()) return true;
  const m = (o: KubeObject | null): boolean => o !== null && sel.matches(labelsOf(o));
  return m(a.object) || m(a.oldObject);
}

/**
 * ShouldCallHook: the invocation when the webhook applies to the request, null when it does not;
 * throws the error a selector lookup gave, but only for a webhook whose rules match.
 */
export function shouldCallHook(w: Webhook, a: AdmissionAttributes, namespaces: NamespaceLabels, equivalents?: EquivalentResources): WebhookInvocation | null {
  const gvr = requestResource(a);
  const ns = matchNamespaceSelector(w, a, gvr, namespaces);
  if (ns === false) return null;
  const obj = matchObjectSelector(w, a);
  if (obj === false) return null;
  let invocation: WebhookInvocation | null = null;
  if (w.rules.some((r) => ruleMatches(r, a, gvr))) {
    invocation = { webhook: w, resource: gvr, subresource: a.subresource, kind: requestKind(a) };
  } else if (w.matchPolicy === 'Equivalent' && equivalents) {
    outer: for (const r of w.rules) {
      for (const eq of equivalents.equivalents(gvr, a.subresource)) {
        if (eq.group === gvr.group && eq.version === gvr.version && eq.resource === gvr.resource) continue;
        if (!ruleMatches(r, a, eq)) continue;
        // A view's kind is the same in every version of its parent (autoscaling/v1 Scale).
        const kind = a.view ? a.view.kind : equivalents.kindFor(eq, a.subresource);
        if (!kind) throw internalError(`unable to convert to ${eq.group}/${eq.version}, Resource=${eq.resource}: unknown kind`);
        invocation = { webhook: w, resource: eq, subresource: a.subresource, kind };
        break outer;
      }
    }
  }
  if (!invocation) return null;
  if (ns instanceof ApiError) throw ns;
  if (obj instanceof ApiError) throw obj;
  return invocation;
}

/**
 * Whether the store named a create from its generateName before admission (kube names it only
 * afterwards, so webhooks see no name): the name is generateName plus 5 random characters.
 */
export function nameIsGenerated(a: AdmissionAttributes): boolean {
  const gen = a.object?.metadata?.generateName;
  return a.operation === 'CREATE' && typeof gen === 'string' && gen !== '' && a.name.length === Math.min(gen.length, 58) + 5 && a.name.startsWith(gen.slice(0, 58));
}
