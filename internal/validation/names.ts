/**
 * String-format validators, after k8s.io/apimachinery/pkg/util/validation (Kubernetes 1.24).
 * Each `isX` returns the list of error messages (empty = valid), worded as kube-apiserver words
 * them, so callers wrap them into FieldErrors (`invalid(path, value, msg)`).
 *
 * Lengths are measured in UTF-8 bytes, as Go's len() does.
 */

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** "must be no more than N characters" */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** "must be non-empty" */
export function emptyError(): string {
  return 'must be non-empty';
}

/**
 * Explanation of a regex failure: `msg (e.g. 'a',  or 'b', regex used for validation is 're')`.
 * The double space before "or" is what apimachinery produces, kept for identical messages.
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) out += ' or ';
    out += `'${ex}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

// ---- qualified names (label keys, annotation keys, finalizers) ----

const qnameCharFmt = '[A-Za-z0-9]';
const qnameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMaxLength = 63;
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);

/**
 * A "qualified name": an optional DNS-subdomain prefix and '/', then a name of at most 63
 * characters of [-A-Za-z0-9_.] that begins and ends alphanumeric (e.g. `example.com/MyName`).
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  switch (parts.length) {
    case 1:
      name = parts[0]!;
      break;
    case 2: {
      const prefix = parts[0]!;
      name = parts[1]!;
      if (prefix.length === 0) {
        errs.push(`prefix part ${emptyError()}`);
      } else {
        for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
      }
      break;
    }
    default:
      return [
        `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ];
  }
  if (name.length === 0) {
    errs.push(`name part ${emptyError()}`);
  } else if (byteLength(name) > qualifiedNameMaxLength) {
    errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  }
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

// ---- label values ----

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

/** A label value: empty, or ≤63 characters of [-A-Za-z0-9_.] beginning and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

// ---- DNS names ----

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);

/** An RFC 1123 DNS label (namespace names, most port/container names): ≤63, [a-z0-9-], alnum ends. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  return errs;
}

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

/** An RFC 1123 DNS subdomain (most object names): ≤253, dot-separated DNS labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const wildcardDNS1123SubdomainFmt = `\\*\\.${dns1123SubdomainFmt}`;
const wildcardDNS1123SubdomainErrMsg =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const wildcardDNS1123SubdomainRe = new RegExp(`^${wildcardDNS1123SubdomainFmt}$`);

/** IsWildcardDNS1123Subdomain: `*.` then a DNS subdomain (e.g. `*.example.com`). */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!wildcardDNS1123SubdomainRe.test(value)) errs.push(regexError(wildcardDNS1123SubdomainErrMsg, wildcardDNS1123SubdomainFmt, '*.example.com'));
  return errs;
}

export const DNS1035_LABEL_MAX_LENGTH = 63;
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);

/** An RFC 1035 DNS label (Service names): like a 1123 label but must start with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

// ---- ConfigMap / Secret keys ----

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

/** A ConfigMap/Secret data key: ≤253 of [-._a-zA-Z0-9], not '.' or '..', not starting with '..'. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

// ---- object-name validators (metadata.name / metadata.generateName) ----

/**
 * Validates an object name. `prefix` is true when validating `generateName`, which gets a random
 * suffix appended, so a trailing '-' is acceptable there.
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * Replaces a trailing '-' so a generateName prefix validates. Mirrors apimachinery exactly: the
 * last two characters are replaced by 'a' ("abc-" → "aba").
 */
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -2)}a`;
  return name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Namespace names (also `metadata.namespace` of namespaced objects) are DNS labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;

/**
 * path.IsValidPathSegmentName: the name can be one URL path segment (RBAC object names such as
 * `system:masters` are not DNS names). kube's ValidateRBACName applies it to prefixes too.
 */
export const nameIsPathSegment: NameValidator = (name) => {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
};
