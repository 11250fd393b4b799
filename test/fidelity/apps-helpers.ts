/**
 * Shared pieces of the apps/v1 fidelity suites (apps-*.test.ts): the suite's target, namespace and
 * collection, and a pod template's spec as kube 1.24 defaults it inside a workload
 * (SetDefaults_PodSpec and the container defaults; no SetDefaults_Pod).
 */
import { test } from 'uvu';
import { startTarget, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';
import { invalidStatus, type Cause } from './storage-helpers.ts';

export const MERGE = 'application/merge-patch+json';

export interface AppsSuite {
  t: Target;
  ns: string;
  /** The collection path in the suite's namespace. */
  C: string;
  /** Placeholders for body(): the namespace. */
  names: Record<string, string>;
  post(body: unknown): Promise<HttpResult>;
}

/** Registers the suite's hooks: a target, a namespace named after `prefix`, the `resource` collection in it. */
export function appsSuite(resource: string, prefix: string): AppsSuite {
  const s = {} as AppsSuite;
  test.before(async () => {
    s.t = await startTarget();
    s.ns = await s.t.createNamespace(prefix);
    s.C = `/apis/apps/v1/namespaces/${s.ns}/${resource}`;
    s.names = { [s.ns]: '<ns>' };
    s.post = (body) => s.t.client.request('POST', s.C, { body });
  });
  test.after(async () => {
    await s.t.client.request('DELETE', `/api/v1/namespaces/${s.ns}`);
    await s.t.close();
  });
  return s;
}

/** kube's 422 for an apps/v1 kind. */
export const invalidApps = (kind: string, name: string, causes: Cause[]): unknown => invalidStatus(kind, name, causes, 'apps');

/** A defaulted container (`pull`: Always for an untagged or :latest image, else IfNotPresent). */
export const defaultedContainer = (name: string, image: string, pull = 'Always') => ({ name, image, resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: pull });

/** A template's metadata and spec with `containers`, defaulted. */
export const defaultedTemplate = (labels: Record<string, string>, containers: unknown[]) => ({
  metadata: { creationTimestamp: null, labels },
  spec: { containers, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler' },
});
