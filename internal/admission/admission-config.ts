/**
 * `--admission-control-config-file` as kube-apiserver 1.24 reads it
 * (k8s.io/apiserver/pkg/admission/config.go ReadAdmissionConfiguration): an AdmissionConfiguration
 * (apiserver.config.k8s.io/v1 or v1alpha1, apiserver.k8s.io/v1alpha1; unknown fields ignored) whose
 * `plugins` give each plugin's configuration inline (`configuration`) or in a file (`path`,
 * relative to the configuration file). A file that is no AdmissionConfiguration fails start-up,
 * but for the two legacy flat formats (`imagePolicy:` / `podNodeSelectorPluginConfig:`), whose
 * plugins this server does not have. Errors carry kube's messages.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** A start-up failure of the admission chain; `message` is kube's (without the `failed to initialize admission: ` prefix the app adds). */
export class AdmissionConfigError extends Error {}

/** What one plugin reads: its configuration's bytes (JSON when inline), or undefined when none is given. */
export interface AdmissionConfigProvider {
  configFor(plugin: string): string | undefined;
}

const ADMISSION_VERSIONS = new Set(['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's json.Marshal of YAML converted to JSON: compact, map keys sorted. */
export function goJsonOf(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJsonOf).join(',')}]`;
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJsonOf(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The errno text Go's os package prints for a failed open/read. */
function osError(op: string, path: string, err: NodeJS.ErrnoException): string {
  const why: Record<string, string> = { ENOENT: 'no such file or directory', EACCES: 'permission denied', EISDIR: 'is a directory', ENOTDIR: 'not a directory' };
  return `${err.code === 'EISDIR' ? 'read' : op} ${path}: ${why[err.code ?? ''] ?? err.message}`;
}

/**
 * The type meta of a decoded document as the universal decoder checks it: `kind` missing, then
 * `apiVersion` missing (both echo `original`), then whether `registered` knows the pair.
 */
export function typeMetaError(doc: Obj, original: string, registered: (apiVersion: string, kind: string) => boolean): string | undefined {
  const kind = typeof doc.kind === 'string' ? doc.kind : '';
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  if (!kind) return `Object 'Kind' is missing in '${original}'`;
  if (!apiVersion) return `Object 'apiVersion' is missing in '${original}'`;
  if (!registered(apiVersion, kind)) return `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/runtime/scheme.go:100"`;
  return undefined;
}

/** No file: no plugin has a configuration. */
const NONE: AdmissionConfigProvider = { configFor: () => undefined };

/** ReadAdmissionConfiguration + configProvider.ConfigFor. Throws AdmissionConfigError. */
export function readAdmissionConfiguration(file: string | undefined): AdmissionConfigProvider {
  if (!file) return NONE;
  const fail = (msg: string): never => {
    throw new AdmissionConfigError(`failed to read plugin config: ${msg}`);
  };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    fail(`unable to read admission control configuration from ${JSON.stringify(file)} [${osError('open', file, e as NodeJS.ErrnoException)}]`);
  }
  let doc: unknown;
  try {
    doc = text.trim() ? parseYaml(text) : {};
  } catch (e) {
    fail(`yaml: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) return fail(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(doc) ? 'array' : typeof doc} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  const err = typeMetaError(doc, text, (v, k) => k === 'AdmissionConfiguration' && ADMISSION_VERSIONS.has(v));
  if (err) {
    // Only the legacy flat files of ImagePolicyWebhook and PodNodeSelector are tolerated (for
    // those plugins, not served here: nothing to configure).
    if ('imagePolicy' in doc || 'podNodeSelectorPluginConfig' in doc) return NONE;
    fail(err);
  }
  const plugins = Array.isArray(doc.plugins) ? doc.plugins.filter(isObj) : [];
  const base = dirname(file);
  return {
    configFor(plugin) {
      const p = plugins.find((x) => x.name === plugin);
      if (!p) return undefined;
      if (p.configuration !== undefined && p.configuration !== null) return goJsonOf(p.configuration);
      if (typeof p.path !== 'string' || !p.path) return undefined;
      const path = isAbsolute(p.path) ? p.path : join(base, p.path);
      try {
        return readFileSync(path, 'utf8');
      } catch (e) {
        // kube's klog.Fatalf; errno 2 is ENOENT.
        const code = (e as NodeJS.ErrnoException).errno;
        throw new AdmissionConfigError(`Couldn't open admission plugin configuration ${path}: &fs.PathError{Op:"open", Path:${JSON.stringify(path)}, Err:0x${Math.abs(code ?? 0).toString(16)}}`);
      }
    },
  };
}
