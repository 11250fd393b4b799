/**
 * ObjectFieldSelector and ResourceFieldSelector validation, shared by downward API volumes and
 * container env (validateObjectFieldSelector, validateContainerResourceFieldSelector and
 * validateContainerResourceDivisor of pkg/apis/core/validation, Kubernetes 1.24).
 */
import { type FieldError, FieldPath, invalid, notSupported, required } from '../../../api/field-errors.ts';
import { isQualifiedName } from '../../../validation/names.ts';
import { canonicalQuantity } from '../../../decode/quantity.ts';
import { quantitySign } from './quantity.ts';
import { sortedList, strAt } from './util.ts';

/** validVolumeDownwardAPIFieldPathExpressions. */
export const VOLUME_DOWNWARD_API_FIELD_PATHS: ReadonlySet<string> = new Set([
  'metadata.name',
  'metadata.namespace',
  'metadata.labels',
  'metadata.annotations',
  'metadata.uid',
]);

/** validEnvDownwardAPIFieldPathExpressions. */
export const ENV_DOWNWARD_API_FIELD_PATHS: ReadonlySet<string> = new Set([
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.podIP',
  'status.podIPs',
]);

/** validContainerResourceFieldPathExpressions. */
export const CONTAINER_RESOURCE_FIELD_PATHS: ReadonlySet<string> = new Set([
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
]);

/** hugepagesRequestsPrefixDownwardAPI / hugepagesLimitsPrefixDownwardAPI. */
export const HUGEPAGES_REQUESTS_PREFIX = 'requests.hugepages-';
export const HUGEPAGES_LIMITS_PREFIX = 'limits.hugepages-';
/** validContainerResourceFieldPathPrefixesWithDownwardAPIHugePages (DownwardAPIHugePages on). */
export const CONTAINER_RESOURCE_PREFIXES_WITH_HUGEPAGES: ReadonlySet<string> = new Set([HUGEPAGES_REQUESTS_PREFIX, HUGEPAGES_LIMITS_PREFIX]);

/** fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['k']` → path and subscript. */
export function splitMaybeSubscriptedPath(fieldPath: string): { path: string; subscript: string; ok: boolean } {
  if (!fieldPath.endsWith("']")) return { path: fieldPath, subscript: '', ok: false };
  const s = fieldPath.slice(0, -2);
  const parts = s.split("['");
  if (parts.length < 2) return { path: fieldPath, subscript: '', ok: false };
  const path = parts[0]!;
  const subscript = parts.slice(1).join("['");
  if (path.length === 0) return { path: fieldPath, subscript: '', ok: false };
  return { path, subscript, ok: true };
}

const CONVERTIBLE_LABELS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.podIP',
  'status.podIPs',
]);

/** podshelper.ConvertDownwardAPIFieldLabel: the internal field path, or Go's error text. */
function convertDownwardAPIFieldLabel(version: string, label: string): { path?: string; error?: string } {
  if (version !== 'v1') return { error: `unsupported pod version: ${version}` };
  const sp = splitMaybeSubscriptedPath(label);
  if (sp.ok) {
    if (sp.path === 'metadata.annotations' || sp.path === 'metadata.labels') return { path: label };
    return { error: `field label does not support subscript: ${label}` };
  }
  if (CONVERTIBLE_LABELS.has(label)) return { path: label };
  if (label === 'spec.host') return { path: 'spec.nodeName' };
  return { error: `field label not supported: ${label}` };
}

/**
 * validateObjectFieldSelector: `fs` is an ObjectFieldSelector ({apiVersion, fieldPath}), already
 * defaulted (apiVersion "v1"); `expressions` the allowed field paths.
 */
export function validateObjectFieldSelector(fs: unknown, expressions: ReadonlySet<string>, p: FieldPath): FieldError[] {
  const apiVersion = strAt(fs, 'apiVersion');
  const fieldPath = strAt(fs, 'fieldPath');
  if (apiVersion.length === 0) return [required(p.child('apiVersion'))];
  if (fieldPath.length === 0) return [required(p.child('fieldPath'))];
  const conv = convertDownwardAPIFieldLabel(apiVersion, fieldPath);
  if (conv.error !== undefined) return [invalid(p.child('fieldPath'), fieldPath, `error converting fieldPath: ${conv.error}`)];
  const internal = conv.path!;
  const sp = splitMaybeSubscriptedPath(internal);
  const errs: FieldError[] = [];
  if (sp.ok) {
    switch (sp.path) {
      case 'metadata.annotations':
        for (const msg of isQualifiedName(sp.subscript.toLowerCase())) errs.push(invalid(p, sp.subscript, msg));
        break;
      case 'metadata.labels':
        for (const msg of isQualifiedName(sp.subscript)) errs.push(invalid(p, sp.subscript, msg));
        break;
      default:
        errs.push(invalid(p, sp.path, 'does not support subscript'));
    }
  } else if (!expressions.has(internal)) {
    return [notSupported(p.child('fieldPath'), internal, sortedList(expressions))];
  }
  return errs;
}

const CPU_DIVISORS = new Set(['1m', '1']);
const BYTE_DIVISORS = new Set(['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei']);

/** Quantity.String() of a stored divisor (canonical; unparseable strings as they are). */
function quantityString(q: unknown): string {
  const s = typeof q === 'number' ? String(q) : typeof q === 'string' ? q : '0';
  try {
    return canonicalQuantity(s);
  } catch {
    return s;
  }
}

/** validateContainerResourceDivisor: `resource` is the selector's resource, `divisor` its quantity. */
export function validateContainerResourceDivisor(resource: string, divisor: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (divisor === undefined || divisor === null || quantitySign(divisor) === 0) return errs;
  const d = quantityString(divisor);
  const dp = p.child('divisor');
  switch (resource) {
    case 'limits.cpu':
    case 'requests.cpu':
      if (!CPU_DIVISORS.has(d)) errs.push(invalid(dp, resource, "only divisor's values 1m and 1 are supported with the cpu resource"));
      break;
    case 'limits.memory':
    case 'requests.memory':
      if (!BYTE_DIVISORS.has(d)) {
        errs.push(invalid(dp, resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource"));
      }
      break;
    case 'limits.ephemeral-storage':
    case 'requests.ephemeral-storage':
      if (!BYTE_DIVISORS.has(d)) {
        errs.push(
          invalid(dp, resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource"),
        );
      }
      break;
  }
  if ((resource.startsWith(HUGEPAGES_REQUESTS_PREFIX) || resource.startsWith(HUGEPAGES_LIMITS_PREFIX)) && !BYTE_DIVISORS.has(d)) {
    errs.push(invalid(dp, resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource"));
  }
  return errs;
}

/**
 * validateContainerResourceFieldSelector: `fs` is a ResourceFieldSelector ({containerName,
 * resource, divisor}); `prefixes` the allowed resource prefixes (hugepages) or undefined;
 * `volume` true for downward API volume files (containerName required there).
 */
export function validateContainerResourceFieldSelector(
  fs: unknown,
  expressions: ReadonlySet<string>,
  prefixes: ReadonlySet<string> | undefined,
  p: FieldPath,
  volume: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const resource = strAt(fs, 'resource');
  if (volume && strAt(fs, 'containerName').length === 0) errs.push(required(p.child('containerName')));
  else if (resource.length === 0) errs.push(required(p.child('resource')));
  else if (!expressions.has(resource)) {
    const found = [...(prefixes ?? [])].some((pre) => resource.startsWith(pre));
    if (!found) errs.push(notSupported(p.child('resource'), resource, sortedList(expressions)));
  }
  errs.push(...validateContainerResourceDivisor(resource, (fs as Record<string, unknown> | undefined)?.divisor, p));
  return errs;
}
