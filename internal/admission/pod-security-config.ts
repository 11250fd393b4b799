/**
 * PodSecurity's configuration (k8s.io/pod-security-admission v0.24 admission/api: load.go,
 * helpers.go ToPolicy, validation.go), read from the admission configuration file:
 * PodSecurityConfiguration pod-security.admission.config.k8s.io/v1beta1 or v1alpha1, decoded
 * strictly (unknown fields and wrong types refused with Go's messages), defaulted
 * (privileged:latest for what is unset), then its defaults parsed ("PodSecurity configuration
 * error: …") and its exemptions validated ("PodSecurity invalid: …"), as the plugin's start-up does.
 * No configuration: kube's default (privileged:latest everywhere, no exemptions).
 */
import { parse as parseYaml } from 'yaml';
import { type FieldError, FieldPath, duplicate, fieldErrorMessage, invalid } from '../api/field-errors.ts';
import { nameIsDNSSubdomain, validateNamespaceName } from '../validation/names.ts';
import { AdmissionConfigError, typeMetaError } from './admission-config.ts';
import { DEFAULT_POLICY, type LevelVersion, type Policy, parseLevel, parseVersion } from './pod-security-policy.ts';

export interface PodSecurityExemptions {
  usernames: string[];
  namespaces: string[];
  runtimeClasses: string[];
}

export interface PodSecurityConfig {
  defaults: Policy;
  exemptions: PodSecurityExemptions;
}

export const DEFAULT_POD_SECURITY_CONFIG: PodSecurityConfig = { defaults: DEFAULT_POLICY, exemptions: { usernames: [], namespaces: [], runtimeClasses: [] } };

const GROUP = 'pod-security.admission.config.k8s.io';
const VERSIONS = ['v1alpha1', 'v1beta1'];
const DEFAULT_FIELDS = ['enforce', 'enforce-version', 'audit', 'audit-version', 'warn', 'warn-version'] as const;
const EXEMPTION_FIELDS = ['usernames', 'namespaces', 'runtimeClasses'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** encoding/json's name of a JSON value's type in an UnmarshalTypeError. */
const jsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : 'object');

/** utilerrors.NewAggregate(...).Error(): one message alone, several in brackets (duplicates once). */
const aggregate = (msgs: string[]): string => {
  const unique = [...new Set(msgs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
};

/**
 * json.Unmarshal (strict) of the document into PodSecurityConfiguration of `version`: the first
 * type error, else every unknown field; the defaults and exemptions as strings.
 */
function decode(doc: Obj, version: string): { defaults: Record<string, string>; exemptions: Record<string, string[]> } {
  const typeError = (v: unknown, field: string, goType: string): never => {
    throw new Error(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${field} of type ${goType}`);
  };
  const unknown: string[] = [];
  for (const k of Object.keys(doc)) if (!['apiVersion', 'kind', 'defaults', 'exemptions'].includes(k)) unknown.push(k);
  const defaults: Record<string, string> = {};
  const d = doc.defaults;
  if (d !== undefined && d !== null) {
    if (!isObj(d)) typeError(d, 'PodSecurityConfiguration.defaults', `${version}.PodSecurityDefaults`);
    for (const [k, v] of Object.entries(d as Obj)) {
      if (!(DEFAULT_FIELDS as readonly string[]).includes(k)) unknown.push(`defaults.${k}`);
      else if (v !== null) {
        if (typeof v !== 'string') typeError(v, `PodSecurityDefaults.defaults.${k}`, 'string');
        defaults[k] = v as string;
      }
    }
  }
  const exemptions: Record<string, string[]> = {};
  const e = doc.exemptions;
  if (e !== undefined && e !== null) {
    if (!isObj(e)) typeError(e, 'PodSecurityConfiguration.exemptions', `${version}.PodSecurityExemptions`);
    for (const [k, v] of Object.entries(e as Obj)) {
      if (!(EXEMPTION_FIELDS as readonly string[]).includes(k)) unknown.push(`exemptions.${k}`);
      else if (v !== null) {
        if (!Array.isArray(v)) typeError(v, `PodSecurityExemptions.exemptions.${k}`, '[]string');
        exemptions[k] = (v as unknown[]).map((x) => (typeof x === 'string' ? x : x === null ? '' : typeError(x, `PodSecurityExemptions.exemptions.${k}`, 'string')));
      }
    }
  }
  if (unknown.length) throw new Error(`strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`);
  return { defaults, exemptions };
}

/** ValidatePodSecurityConfiguration's exemption rules (its defaults checks repeat ToPolicy's). */
function validateExemptions(ex: PodSecurityExemptions): FieldError[] {
  const errs: FieldError[] = [];
  const check = (field: keyof PodSecurityExemptions, problems: (v: string) => string[], emptyDetail?: string): void => {
    const seen = new Set<string>();
    ex[field].forEach((v, i) => {
      const p = new FieldPath('exemptions').child(field).index(i);
      const msgs = emptyDetail !== undefined && v === '' ? [emptyDetail] : problems(v);
      if (msgs.length) errs.push(invalid(p, v, msgs.join(', ')));
      else if (seen.has(v)) errs.push(duplicate(p, v));
      else seen.add(v);
    });
  };
  check('namespaces', (v) => validateNamespaceName(v, false));
  check('runtimeClasses', (v) => nameIsDNSSubdomain(v, false));
  check('usernames', () => [], 'username must not be empty');
  return errs;
}

/**
 * The plugin's configuration from its bytes (`undefined`: none given). Throws AdmissionConfigError
 * with kube's message (`couldn't init admission plugin "PodSecurity": …` for a decoding error,
 * `failed to initialize admission plugin "PodSecurity": …` for a bad value).
 */
export function podSecurityConfiguration(data: string | undefined): PodSecurityConfig {
  if (data === undefined || data.length === 0) return DEFAULT_POD_SECURITY_CONFIG;
  const cannotInit = (msg: string): never => {
    throw new AdmissionConfigError(`couldn't init admission plugin "PodSecurity": ${msg}`);
  };
  let doc: unknown;
  try {
    doc = parseYaml(data);
  } catch (e) {
    cannotInit(`yaml: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) return cannotInit(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  // The decoder echoes the bytes it was given: the inline configuration as JSON, a file as written.
  const metaErr = typeMetaError(doc, data, (v, k) => k === 'PodSecurityConfiguration' && VERSIONS.some((x) => v === `${GROUP}/${x}`));
  if (metaErr) cannotInit(metaErr);
  let decoded: ReturnType<typeof decode>;
  try {
    decoded = decode(doc, String(doc.apiVersion).slice(GROUP.length + 1));
  } catch (e) {
    return cannotInit((e as Error).message);
  }
  // SetDefaults_PodSecurityDefaults, then ToPolicy.
  const get = (k: (typeof DEFAULT_FIELDS)[number]): string => decoded.defaults[k] || (k.endsWith('-version') ? 'latest' : 'privileged');
  const problems: string[] = [];
  const mode = (m: 'enforce' | 'audit' | 'warn'): LevelVersion => {
    const level = parseLevel(get(m));
    const version = parseVersion(get(`${m}-version`));
    if (typeof level !== 'string') problems.push(`${m}: ${level.error}`);
    if ('error' in version) problems.push(`${m}-version: ${version.error}`);
    return { level: typeof level !== 'string' ? 'restricted' : level, version: 'error' in version ? { latest: true } : version };
  };
  const defaults: Policy = { enforce: mode('enforce'), audit: mode('audit'), warn: mode('warn') };
  const init = (msg: string): never => {
    throw new AdmissionConfigError(`failed to initialize admission plugin "PodSecurity": ${msg}`);
  };
  if (problems.length) init(`PodSecurity configuration error: ${aggregate(problems)}`);
  const exemptions: PodSecurityExemptions = { usernames: decoded.exemptions.usernames ?? [], namespaces: decoded.exemptions.namespaces ?? [], runtimeClasses: decoded.exemptions.runtimeClasses ?? [] };
  const errs = validateExemptions(exemptions);
  if (errs.length) init(`PodSecurity invalid: ${aggregate(errs.map(fieldErrorMessage))}`);
  return { defaults, exemptions };
}
