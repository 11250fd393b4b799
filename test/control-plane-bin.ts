/**
 * The real control plane test/control-plane.test.ts runs against a server: kube-controller-manager
 * and kube-scheduler v1.24.17, built from the Go module proxy as the reference's build.sh builds them
 * (a wrapper module copying k8s.io/kubernetes' replace block, staging modules at their v0.24.17
 * tags, `-tags providerless`), and kwok (sigs.k8s.io/kwok v0.4.0: its go.mod builds with this Go and
 * the proxy; v0.1/v0.2 are not on the proxy), into .cache/control-plane/bin with a stamp each
 * (version + Go version), and helm v3.9.4 (`go install helm.sh/helm/v3/cmd/helm@v3.9.4`, for
 * `helm install --wait`). Binaries with a matching stamp in the reference's cache
 * ($KUBE_REF_DIR, default ~/.cache/kube-ref/bin) are copied instead of built. Modules and build
 * cache are the other Go suites' (.cache/go). A failed build throws: no suite skips silently.
 * CONTROL_PLANE_DIR puts the binaries and the wrapper module elsewhere.
 *
 *   node --import tsx test/control-plane-bin.ts     # what .ci/run does before the suites
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { goEnv } from './go-env.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIR = process.env.CONTROL_PLANE_DIR ?? path.join(ROOT, '.cache', 'control-plane');
const BIN = path.join(DIR, 'bin');
export const KUBE_VERSION = 'v1.24.17';
/**
 * This server's controllers that kube-controller-manager also runs: switched off here
 * (`--controllers=-<name>,…`) so that two controllers never fight over the same objects.
 */
export const HANDED_OVER = ['namespace', 'garbagecollector', 'serviceaccount', 'serviceaccount-token', 'root-ca-cert-publisher', 'clusterrole-aggregation', 'pv-protection', 'pvc-protection', 'disruption', 'resourcequota'];
export const KWOK_VERSION = 'v0.4.0';
/** helm 3.9 (client-go v0.24, the chart `helm create` writes for kube 1.24). */
export const HELM_VERSION = 'v3.9.4';
const KUBE_TAGS = 'providerless';
const run = promisify(execFile);

export interface ControlPlaneBinaries {
  kubeControllerManager: string;
  kubeScheduler: string;
  kwok: string;
  helm: string;
}

/** The Go suites' caches; -mod=mod left out (`go mod tidy` and `go install pkg@v` refuse it). */
const env = (): NodeJS.ProcessEnv => ({ ...goEnv(), GOFLAGS: '-modcacherw' });

async function go(args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const { stdout } = await run('go', args, { cwd, env: { ...env(), ...extra }, maxBuffer: 64 << 20 });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`go ${args.join(' ')} (in ${cwd}) failed: ${(err.stderr ?? err.message).slice(-4000)}`);
  }
}

const stampOk = (file: string, stamp: string): boolean => existsSync(file) && existsSync(`${file}.stamp`) && readFileSync(`${file}.stamp`, 'utf8').trim() === stamp;

function writeBinary(built: string, file: string, stamp: string): void {
  renameSync(built, file);
  writeFileSync(`${file}.stamp`, `${stamp}\n`);
}

/**
 * go.mod of the wrapper module: k8s.io/kubernetes' replace block with every `./staging/src/…`
 * target replaced by the staging module's published tag (v0.M.P for v1.M.P).
 */
export function wrapperGoMod(kubernetesGoMod: string, kubeVersion: string): string {
  const staging = `v0.${kubeVersion.slice('v1.'.length)}`;
  const blocks = [...kubernetesGoMod.matchAll(/\nreplace \(([\s\S]*?)\n\)/g)].map((m) => m[1]!);
  const single = [...kubernetesGoMod.matchAll(/\nreplace ([^(\n].*)/g)].map((m) => m[1]!);
  const replaces: string[] = [];
  for (const line of [...blocks.flatMap((b) => b.split('\n')), ...single]) {
    const l = line.split('//')[0]!.trim();
    if (!l) continue;
    const m = /^(\S+) => \.\/staging\/src\/\S+$/.exec(l);
    replaces.push(m ? `${m[1]} => ${m[1]} ${staging}` : l);
  }
  return `module kube-control-plane\n\ngo 1.19\n\nrequire k8s.io/kubernetes ${kubeVersion}\n\nreplace (\n${replaces.map((r) => `\t${r}`).join('\n')}\n)\n`;
}

async function buildKube(goVersion: string): Promise<void> {
  const stamp = `${KUBE_VERSION} tags=${KUBE_TAGS} ${goVersion}`;
  const names = ['kube-controller-manager', 'kube-scheduler'];
  const refBin = path.join(process.env.KUBE_REF_DIR ?? path.join(homedir(), '.cache', 'kube-ref'), 'bin');
  const missing: string[] = [];
  for (const n of names) {
    const file = path.join(BIN, n);
    if (stampOk(file, stamp)) continue;
    // The reference's cache stamps `<version> tags=<tags> <go>` in bin/.<name>.stamp.
    const ref = path.join(refBin, n);
    const refStamp = path.join(refBin, `.${n}.stamp`);
    if (existsSync(ref) && existsSync(refStamp) && readFileSync(refStamp, 'utf8').trim() === stamp) {
      copyFileSync(ref, `${file}.tmp`);
      writeBinary(`${file}.tmp`, file, stamp);
    } else missing.push(n);
  }
  if (!missing.length) return;
  const src = path.join(DIR, 'src', 'kube');
  mkdirSync(src, { recursive: true });
  const info = JSON.parse(await go(['mod', 'download', '-json', `k8s.io/kubernetes@${KUBE_VERSION}`], src)) as { GoMod: string };
  writeFileSync(path.join(src, 'go.mod'), wrapperGoMod(readFileSync(info.GoMod, 'utf8'), KUBE_VERSION));
  writeFileSync(path.join(src, 'tools.go'), `//go:build tools\n\npackage tools\n\nimport (\n${names.map((n) => `\t_ "k8s.io/kubernetes/cmd/${n}"`).join('\n')}\n)\n`);
  await go(['mod', 'tidy'], src);
  const minor = KUBE_VERSION.split('.')[1]!;
  const ldflags = ['-s', '-w', ...['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((p) => [`-X ${p}.gitVersion=${KUBE_VERSION}`, `-X ${p}.gitMajor=1`, `-X ${p}.gitMinor=${minor}`, `-X ${p}.gitTreeState=clean`])].join(' ');
  for (const n of missing) {
    const file = path.join(BIN, n);
    await go(['build', '-tags', KUBE_TAGS, '-trimpath', '-ldflags', ldflags, '-o', `${file}.tmp`, `k8s.io/kubernetes/cmd/${n}`], src);
    writeBinary(`${file}.tmp`, file, stamp);
  }
}

/**
 * `go install pkg@version` (the module's own go.mod) of one binary into BIN, unless its stamp matches.
 * `ldflags` as the project's release build sets them, where the version is not in the module.
 */
async function goInstall(name: string, pkg: string, version: string, goVersion: string, ldflags = ''): Promise<void> {
  const file = path.join(BIN, name);
  const stamp = `${version} ${goVersion}`;
  if (stampOk(file, stamp)) return;
  const tmp = path.join(DIR, `${name}-install`);
  mkdirSync(tmp, { recursive: true });
  await go(['install', ...(ldflags ? ['-ldflags', ldflags] : []), `${pkg}@${version}`], DIR, { GOBIN: tmp });
  writeBinary(path.join(tmp, name), file, stamp);
}

/** The binaries, built (or copied) once per version and Go toolchain. */
export async function controlPlaneBinaries(): Promise<ControlPlaneBinaries> {
  mkdirSync(BIN, { recursive: true });
  const goVersion = (await go(['env', 'GOVERSION'], ROOT)).trim();
  await buildKube(goVersion);
  await goInstall('kwok', 'sigs.k8s.io/kwok/cmd/kwok', KWOK_VERSION, goVersion);
  await goInstall('helm', 'helm.sh/helm/v3/cmd/helm', HELM_VERSION, goVersion, `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`);
  return { kubeControllerManager: path.join(BIN, 'kube-controller-manager'), kubeScheduler: path.join(BIN, 'kube-scheduler'), kwok: path.join(BIN, 'kwok'), helm: path.join(BIN, 'helm') };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  const bins = await controlPlaneBinaries();
  console.log(`control plane binaries ready in ${((Date.now() - t0) / 1000).toFixed(1)}s: ${Object.values(bins).join(' ')}`);
}
