/**
 * Writes internal/auth/rbac/bootstrap-policy.json: the RBAC objects kube-apiserver 1.24 creates at
 * start-up (its rbac/bootstrap-roles post-start hook, pkg/apis/rbac/bootstrappolicy), read from a
 * running reference kube-apiserver 1.24.17 (../shared/reference/start.sh):
 *
 *   node --import tsx cmd/gen-rbac-bootstrap.ts /tmp/ref/kubeconfig
 *
 * Kept: every ClusterRole, ClusterRoleBinding, Role and RoleBinding carrying the
 * `rbac.authorization.kubernetes.io/autoupdate: "true"` annotation (the bootstrap policy's mark),
 * with name, namespace, labels, annotations and content. Aggregated ClusterRoles are kept with empty
 * rules: this server's aggregation controller fills them, as kube's does.
 *
 * Read with kubectl (`get --raw`, the kubeconfig's credentials): a maintainer's tool on the PATH,
 * so this command needs nothing from test/ (which is not built into dist/).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const GROUP = '/apis/rbac.authorization.k8s.io/v1';
const OUT = join(import.meta.dirname, '..', 'internal', 'auth', 'rbac', 'bootstrap-policy.json');

type Obj = { metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; [k: string]: unknown };

async function main(): Promise<void> {
  const kubeconfig = process.argv[2];
  if (!kubeconfig) throw new Error('usage: gen-rbac-bootstrap.ts <kubeconfig of a reference kube-apiserver 1.24>');
  const out: Record<string, unknown[]> = {};
  for (const resource of ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings']) {
    const list = JSON.parse(execFileSync('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', `${GROUP}/${resource}`], { encoding: 'utf8', maxBuffer: 64 << 20 })) as { items: Obj[] };
    out[resource] = list.items
      .filter((o) => o.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'] === 'true')
      .map((o) => {
        const { metadata, kind: _k, apiVersion: _a, ...content } = o;
        const meta = { name: metadata.name, ...(metadata.namespace ? { namespace: metadata.namespace } : {}), ...(metadata.labels ? { labels: metadata.labels } : {}), annotations: metadata.annotations };
        if (content.aggregationRule) content.rules = [];
        return { metadata: meta, ...content };
      })
      .sort((a, b) => `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace ?? ''}/${b.metadata.name}`));
  }
  writeFileSync(OUT, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${OUT}: ${Object.entries(out).map(([k, v]) => `${v.length} ${k}`).join(', ')}`);
}

await main();
