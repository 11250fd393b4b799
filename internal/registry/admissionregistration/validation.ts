/**
 * Defaulting and validation shared by MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1), after Kubernetes 1.24.17:
 * pkg/apis/admissionregistration/v1/defaults.go, pkg/apis/admissionregistration/validation and
 * apiserver's pkg/util/webhook/validation.go (ValidateWebhookURL, ValidateWebhookService).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, invalid, notSupported, required } from '../../api/field-errors.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { isDNS1035Label, isDNS1123Subdomain } from '../../validation/names.ts';
import { isValidPortNum } from '../../validation/network.ts';
import { arr, goStrings, obj, str } from '../storage/helpers.ts';
import { isObj } from '../../gocompat/json.ts';

/** AcceptedAdmissionReviewVersions: the AdmissionReview versions this server can send. */
export const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
/** v1 requires webhooks without side effects (or none on dry run). */
/** The sideEffects values v1 allows (and the only ones a dry run may reach). */
export const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
/** Default webhook call timeout (SetDefaults_*Webhook), and its allowed range. */
const DEFAULT_TIMEOUT_SECONDS = 10;

/** The webhooks of a configuration (objects only; decoding has already typed them). */
export const webhooksOf = (o: KubeObject): Record<string, unknown>[] => arr(o.webhooks).filter(isObj);

/**
 * SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook, SetDefaults_Rule and
 * SetDefaults_ServiceReference on every webhook. `mutating` adds reinvocationPolicy Never.
 */
export function defaultWebhooks(o: KubeObject, mutating: boolean): void {
  for (const w of webhooksOf(o)) {
    w.failurePolicy ??= 'Fail';
    w.matchPolicy ??= 'Equivalent';
    w.namespaceSelector ??= {};
    w.objectSelector ??= {};
    w.timeoutSeconds ??= DEFAULT_TIMEOUT_SECONDS;
    if (mutating) w.reinvocationPolicy ??= 'Never';
    for (const r of arr(w.rules).filter(isObj)) r.scope ??= '*';
    const svc = obj(w.clientConfig).service;
    if (isObj(svc)) svc.port ??= 443;
  }
}

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
}

const STRICT: Options = { requireNoSideEffects: true, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: true };

/** ValidateMutating/ValidatingWebhookConfiguration (ObjectMeta is the store's). */
export function validateConfiguration(o: KubeObject, mutating: boolean): FieldError[] {
  return validateWithOptions(o, mutating, STRICT);
}

/**
 * The *Update variants: each strict rule applies only if the old object already met it, so a
 * configuration stored before a rule existed can still be updated.
 */
export function validateConfigurationUpdate(n: KubeObject, old: KubeObject, mutating: boolean): FieldError[] {
  const hooks = webhooksOf(old);
  const accepted = (w: Record<string, unknown>): boolean => {
    const v = arr(w.admissionReviewVersions).map(str);
    return v.length === 0 || v.some((x) => ACCEPTED_REVIEW_VERSIONS.includes(x));
  };
  const names = hooks.map((w) => str(w.name));
  return validateWithOptions(n, mutating, {
    requireNoSideEffects: hooks.every((w) => NO_SIDE_EFFECTS.includes(str(w.sideEffects))),
    requireRecognizedAdmissionReviewVersion: hooks.every(accepted),
    requireUniqueWebhookNames: new Set(names).size === names.length,
  });
}

function validateWithOptions(o: KubeObject, mutating: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  webhooksOf(o).forEach((w, i) => {
    const p = new FieldPath('webhooks').index(i);
    errs.push(...validateWebhook(w, p, mutating, opts));
    errs.push(...validateAdmissionReviewVersions(arr(w.admissionReviewVersions).map(str), opts.requireRecognizedAdmissionReviewVersion, p.child('admissionReviewVersions')));
    const name = str(w.name);
    if (opts.requireUniqueWebhookNames && name) {
      if (seen.has(name)) errs.push(duplicate(p.child('name'), name));
      else seen.add(name);
    }
  });
  return errs;
}

/** validation.IsFullyQualifiedName: a DNS subdomain of at least three dot-separated segments. */
export function validateFullyQualifiedName(name: string, p: FieldPath): FieldError[] {
  if (!name) return [required(p, '')];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [invalid(p, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalid(p, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateWebhook(w: Record<string, unknown>, p: FieldPath, mutating: boolean, opts: Options): FieldError[] {
  const errs = validateFullyQualifiedName(str(w.name), p.child('name'));
  arr(w.rules).forEach((r, i) => errs.push(...validateRuleWithOperations(obj(r), p.child('rules').index(i))));
  if (w.failurePolicy != null && !FAILURE_POLICIES.includes(str(w.failurePolicy))) errs.push(notSupported(p.child('failurePolicy'), w.failurePolicy, FAILURE_POLICIES));
  if (w.matchPolicy != null && !MATCH_POLICIES.includes(str(w.matchPolicy))) errs.push(notSupported(p.child('matchPolicy'), w.matchPolicy, MATCH_POLICIES));
  const allowed = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (w.sideEffects == null) errs.push(required(p.child('sideEffects'), `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(str(w.sideEffects))) errs.push(notSupported(p.child('sideEffects'), w.sideEffects, allowed));
  const timeout = w.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) errs.push(invalid(p.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  if (w.namespaceSelector != null) errs.push(...validateLabelSelector(w.namespaceSelector, p.child('namespaceSelector')));
  if (w.objectSelector != null) errs.push(...validateLabelSelector(w.objectSelector, p.child('objectSelector')));
  if (mutating && w.reinvocationPolicy != null && !REINVOCATION_POLICIES.includes(str(w.reinvocationPolicy))) {
    errs.push(notSupported(p.child('reinvocationPolicy'), w.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  const cc = obj(w.clientConfig);
  const cp = p.child('clientConfig');
  const hasUrl = typeof cc.url === 'string';
  const hasService = isObj(cc.service);
  if (hasUrl === hasService) errs.push(required(cp, 'exactly one of url or service is required'));
  else if (hasUrl) errs.push(...validateWebhookURL(cp.child('url'), str(cc.url)));
  else {
    const s = obj(cc.service);
    errs.push(...validateWebhookService(cp.child('service'), str(s.namespace), str(s.name), typeof s.path === 'string' ? s.path : undefined, typeof s.port === 'number' ? s.port : 0));
  }
  return errs;
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, p: FieldPath): FieldError[] {
  if (versions.length < 1) return [required(p, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  return validateReviewVersions(versions, requireRecognized, p);
}

/**
 * A non-empty list of review versions (admissionReviewVersions, a CRD's conversionReviewVersions):
 * DNS-1035 labels, no duplicates, one of v1/v1beta1 when `requireRecognized`.
 */
export function validateReviewVersions(versions: string[], requireRecognized: boolean, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(p.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const e of isDNS1035Label(v)) errs.push(invalid(p.index(i), v, e));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalid(p, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function validateRuleWithOperations(r: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(r.operations).map(str);
  if (ops.length === 0) errs.push(required(p.child('operations'), ''));
  if (ops.length > 1 && ops.includes('*')) {
    errs.push(invalid(p.child('operations'), new GoValue(goStrings(ops, '[]admissionregistration.OperationType')), "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(p.child('operations').index(i), op, OPERATIONS));
  });
  const groups = arr(r.apiGroups).map(str);
  if (groups.length === 0) errs.push(required(p.child('apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalid(p.child('apiGroups'), new GoValue(goStrings(groups)), "if '*' is present, must not specify other API groups"));
  const versions = arr(r.apiVersions).map(str);
  if (versions.length === 0) errs.push(required(p.child('apiVersions'), ''));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalid(p.child('apiVersions'), new GoValue(goStrings(versions)), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(p.child('apiVersions').index(i), ''));
  });
  errs.push(...validateResources(arr(r.resources).map(str), p.child('resources')));
  if (r.scope != null && !SCOPES.includes(str(r.scope))) errs.push(notSupported(p.child('scope'), r.scope, SCOPES));
  return errs;
}

/** validateResources (subresources allowed): wildcard combinations that would be redundant are refused. */
function validateResources(resources: string[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(p, ''));
  const resWithWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((rs, i) => {
    if (rs === '') {
      errs.push(required(p.index(i), ''));
      return;
    }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      // kube keeps only the last such resource's verdict (a plain assignment, not an OR).
      withoutSub = rs !== '*';
      return;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (resWithWildcardSub.has(res)) errs.push(invalid(p.index(i), rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (subWithWildcardRes.has(sub)) errs.push(invalid(p.index(i), rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') resWithWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(p, new GoValue(goStrings(resources)), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalid(p, new GoValue(goStrings(resources)), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/**
 * Go's url.Parse, as far as ValidateWebhookURL reads it: scheme, host, user info, query and
 * fragment. Returns the error text url.Parse would give, or the parts.
 */
export function parseGoURL(raw: string): { scheme: string; host: string; user: string | null; query: string; fragment: string; path: string } | string {
  if (/[\x00-\x1f\x7f]/.test(raw)) return `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL`;
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = decodeURIComponentSafe(rest.slice(hash + 1));
    rest = rest.slice(0, hash);
  }
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (!m && rest.startsWith(':')) return `parse ${JSON.stringify(raw)}: missing protocol scheme`;
  const scheme = m ? m[1].toLowerCase() : '';
  if (m) rest = rest.slice(m[0].length);
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | null = null;
  let path = rest;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    path = end < 0 ? '' : rest.slice(end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  return { scheme, host, user, query, fragment, path };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** webhook.ValidateWebhookURL with forceHttps. */
export function validateWebhookURL(p: FieldPath, raw: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const u = parseGoURL(raw);
  if (typeof u === 'string') return [required(p, `url must be a valid URL: ${u}${form}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(invalid(p, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (!u.host) errs.push(invalid(p, u.host, `host must be provided${form}`));
  if (u.user !== null) errs.push(invalid(p, u.user, 'user information is not permitted in the URL'));
  if (u.fragment) errs.push(invalid(p, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query) errs.push(invalid(p, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService. */
export function validateWebhookService(p: FieldPath, namespace: string, name: string, path: string | undefined, port: number): FieldError[] {
  const errs: FieldError[] = [];
  if (!name) errs.push(required(p.child('name'), 'service name is required'));
  if (!namespace) errs.push(required(p.child('namespace'), 'service namespace is required'));
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(invalid(p.child('port'), port, `port is not valid: ${portErrs.join(', ')}`));
  if (path === undefined || path === '/' || path === '') return errs;
  if (path === '//') return [...errs, invalid(p.child('path'), path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(invalid(p.child('path'), path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) {
      errs.push(invalid(p.child('path'), path, `segment[${i}] may not be empty`));
      return;
    }
    for (const f of isDNS1123Subdomain(step)) errs.push(invalid(p.child('path'), path, `segment[${i}]: ${f}`));
  });
  return errs;
}
