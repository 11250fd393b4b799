/**
 * CRDs on a Target (test/target.ts) for the custom-resource suites: create one and wait until its
 * kind is served, delete it again on the reference (this server's data dir goes with it).
 */
import * as assert from 'uvu/assert';
import type { Target } from './target.ts';
import { eventually, type HttpResult } from './harness.ts';

export const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A failed request's text for an assertion message. */
export const show = (r: HttpResult): string => `HTTP ${r.status} ${r.headers['content-type']}: ${r.text.slice(0, 800)}`;

/** POST the CRD (201) and wait until its first version lists its plural in discovery. */
export async function serveCRD(t: Target, crd: { metadata: { name: string }; spec: { group: string; names: { plural: string }; versions: { name: string }[] } }): Promise<void> {
  const r = await t.client.request('POST', CRD_PATH, { body: crd });
  assert.is(r.status, 201, show(r));
  const { group, names, versions } = crd.spec;
  await eventually(`${crd.metadata.name} served`, async () => {
    const d = await t.client.request('GET', `/apis/${group}/${versions[0].name}`);
    return d.status === 200 && (d.json?.resources ?? []).some((x: { name: string }) => x.name === names.plural);
  });
}

/** Delete a CRD on the reference (a long-lived cluster); nothing to do on this server. */
export async function dropCRD(t: Target | undefined, name: string): Promise<void> {
  if (t?.reference) await t.client.request('DELETE', `${CRD_PATH}/${name}`);
}

/** A namespaced CRD `<plural>.<group>` with one served storage version `v1` (its other fields given). */
export function namespacedCRD(group: string, names: { plural: string; singular: string; kind: string; [k: string]: unknown }, v1: Record<string, unknown>) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: { group, scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true, ...v1 }] },
  };
}

/** `scalers.<group>` (kind Scaler) with the status and scale subresources at spec/status replicas and status.selector. */
export const scalerCRD = (group: string) =>
  namespacedCRD(group, { plural: 'scalers', singular: 'scaler', kind: 'Scaler', listKind: 'ScalerList' }, {
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { replicas: { type: 'integer' }, note: { type: 'string' } } },
          status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
        },
      },
    },
  });
