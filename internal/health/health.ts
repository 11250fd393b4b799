/**
 * /healthz, /livez, /readyz with kube-apiserver's output format: `[+]<check> ok` lines with
 * `?verbose`, `?exclude=<check>`, and individual checks at `/<endpoint>/<check>`.
 */
export interface HealthCheck {
  name: string;
  check(): Promise<void> | void;
  /** Only on /readyz (kube-apiserver's informer-sync and shutdown): /healthz skips it. */
  readyzOnly?: boolean;
}

export interface HealthResult {
  code: number;
  body: string;
}

export async function runHealth(endpoint: string, checks: HealthCheck[], subpath: string, query: URLSearchParams): Promise<HealthResult> {
  // kube-apiserver's healthz has the livez checks only (callers may pass either list).
  if (endpoint === 'healthz') checks = checks.filter((c) => !c.readyzOnly);
  if (subpath) {
    const c = checks.find((x) => x.name === subpath);
    if (!c) return { code: 404, body: '404 page not found\n' };
    try {
      await c.check();
      return { code: 200, body: 'ok' };
    } catch (e) {
      return { code: 500, body: `internal server error: ${(e as Error).message}\n` };
    }
  }
  const excluded = new Set(query.getAll('exclude'));
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    if (excluded.has(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
      excluded.delete(c.name);
      continue;
    }
    try {
      await c.check();
      lines.push(`[+]${c.name} ok`);
    } catch {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  }
  const verbose = query.has('verbose');
  if (failed) {
    return { code: 500, body: `${lines.join('\n')}\n${endpoint} check failed\n` };
  }
  if (!verbose) return { code: 200, body: 'ok' };
  const warn = [...excluded].map((n) => `warn: some health checks cannot be excluded: no matches for "${n}"\n`).join('');
  return { code: 200, body: `${lines.join('\n')}\n${warn}${endpoint} check passed\n` };
}
