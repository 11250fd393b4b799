/**
 * The metric lifecycle of component-base/metrics (Kubernetes 1.24), over prom-client: a metric has a
 * stability class (ALPHA, STABLE) and may be deprecated since a version. Its HELP text reads
 * `[STABLE] (Deprecated since 1.23.0) text`. A metric deprecated before the current minor release is
 * hidden — not registered — unless the server runs with `--show-hidden-metrics-for-version=<previous
 * minor>`; that flag accepts only the previous minor version.
 */

export type StabilityLevel = 'ALPHA' | 'STABLE';

/** What every metric declares besides its prom-client options. */
export interface MetricMeta {
  name: string;
  help: string;
  stabilityLevel: StabilityLevel;
  /** `1.23.0`: deprecated since that release. */
  deprecatedVersion?: string;
}

/** The release whose metric lifecycle this server follows (kube-apiserver 1.24). */
export const CURRENT_VERSION = { major: 1, minor: 24 };

function parseVersion(v: string): { major: number; minor: number; patch: number } {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(v);
  if (!m) throw new Error(`metric version ${JSON.stringify(v)} is not major.minor.patch`);
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/** shouldHide: deprecated at a version below `<current major>.<current minor>.0`. */
export function isHidden(meta: MetricMeta, current = CURRENT_VERSION): boolean {
  if (!meta.deprecatedVersion) return false;
  const d = parseVersion(meta.deprecatedVersion);
  return d.major < current.major || (d.major === current.major && d.minor < current.minor);
}

/** The HELP text as component-base annotates it: stability first, then the deprecation notice. */
export function annotatedHelp(meta: MetricMeta): string {
  const text = meta.deprecatedVersion ? `(Deprecated since ${meta.deprecatedVersion}) ${meta.help}` : meta.help;
  return `[${meta.stabilityLevel}] ${text}`;
}

/**
 * Checks a `--show-hidden-metrics-for-version` value: empty, or exactly the previous minor version.
 * Returns component-base's error message, or undefined when the value is acceptable.
 */
export function validateShowHiddenMetricsVersion(value: string, current = CURRENT_VERSION): string | undefined {
  if (value === '') return undefined;
  const valid = `${current.major}.${current.minor - 1}`;
  if (value !== valid) return `--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`;
  return undefined;
}

/** Whether a metric is registered: visible ones always, hidden ones only when shown. */
export const isRegistered = (meta: MetricMeta, showHidden: boolean): boolean => showHidden || !isHidden(meta);
