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
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientForKubeconfig } from '../test/target.ts';

const GROUP = '/apis/rbac.authorization.k8s.io/v1';
const OUT = join(import.meta.dirname, '..', 'internal', 'auth', 'rbac', 'bootstrap-policy.json');

type Obj = { metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; [k: string]: unknown };

async function main(): Promise<void> {
  const kubeconfig = process.argv[2];
  if (!kubeconfig) throw new Error('usage: gen-rbac-bootstrap.ts <kubeconfig of a reference kube-apiserver 1.24>');
  const { client } = clientForKubeconfig(kubeconfig);
  const out: Record<string, unknown[]> = {};
  try {
    for (const resource of ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings']) {
      const r = await client.request('GET', `${GROUP}/${resource}`);
      if (r.status !== 200) throw new Error(`GET ${resource}: ${r.status} ${r.text}`);
      out[resource] = (r.json.items as Obj[])
        .filter((o) => o.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'] === 'true')
        .map((o) => {
          const { metadata, kind: _k, apiVersion: _a, ...content } = o;
          const meta = { name: metadata.name, ...(metadata.namespace ? { namespace: metadata.namespace } : {}), ...(metadata.labels ? { labels: metadata.labels } : {}), annotations: metadata.annotations };
          if (content.aggregationRule) content.rules = [];
          return { metadata: meta, ...content };
        })
        .sort((a, b) => `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace ?? ''}/${b.metadata.name}`));
    }
  } finally {
    await client.close();
  }
  writeFileSync(OUT, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${OUT}: ${Object.entries(out).map(([k, v]) => `${v.length} ${k}`).join(', ')}`);
}

await main();
