/**
 * The golden cases (cases.yaml) and answers (golden.json), shared by record.ts (which asks the
 * reference kube-apiserver) and golden.test.ts (which asks this library).
 */
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export interface CrdCase {
  plural: string;
  kind: string;
  scope: 'Namespaced' | 'Cluster';
  schema: Record<string, unknown>;
  /** spec.versions[0].subresources (status, scale). */
  subresources?: { status?: Record<string, never>; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
}
export interface ResourceCase {
  name: string;
  plural: string;
  object: Record<string, unknown>;
}
export interface StructuralCase {
  name: string;
  schema: Record<string, unknown>;
  /** A second served version (v2) with its own schema: kube then names `spec.versions[i].schema…`. */
  v2Schema?: Record<string, unknown>;
  /** The version's subresources (the status subresource restricts the root of the schema). */
  subresources?: CrdCase['subresources'];
}
export interface Cases {
  group: string;
  crds: CrdCase[];
  resources: ResourceCase[];
  structural: StructuralCase[];
}
export interface Answer {
  code: number;
  body: any;
}
export interface Golden {
  resources: Record<string, Answer>;
  structural: Record<string, Answer>;
}

const here = dirname(fileURLToPath(import.meta.url));

export const loadCases = (): Cases => parseYaml(readFileSync(join(here, 'cases.yaml'), 'utf8')) as Cases;
export const loadGolden = (): Golden => JSON.parse(readFileSync(join(here, 'golden.json'), 'utf8')) as Golden;

/** The CustomResourceDefinition (one version, v1, served and stored) a case describes. */
export function crdObject(group: string, c: CrdCase, v2Schema?: Record<string, unknown>): any {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${c.plural}.${group}` },
    spec: {
      group,
      scope: c.scope,
      names: { plural: c.plural, singular: c.plural.replace(/s$/, ''), kind: c.kind, listKind: `${c.kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: c.schema }, ...(c.subresources ? { subresources: c.subresources } : {}) }] as unknown[],
    },
  };
  if (v2Schema) crd.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: v2Schema } });
  return crd;
}
