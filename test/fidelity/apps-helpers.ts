/**
 * Shared pieces of the apps/v1 fidelity suites (apps-*.test.ts): the suite's target, namespace and
 * collection, and a pod template's spec as kube 1.24 defaults it inside a workload
 * (SetDefaults_PodSpec and the container defaults; no SetDefaults_Pod).
 */
import { test } from 'uvu';
import { invalidStatus, namespacedSuite, type Cause } from './storage-helpers.ts';

export const MERGE = 'application/merge-patch+json';

/** The suite's hooks: a target, a namespace named after `prefix`, the apps/v1 `resource` collection in it. */
export const appsSuite = (resource: string, prefix: string) => namespacedSuite(test, prefix, resource, 'apps/v1');

/** kube's 422 for an apps/v1 kind. */
export const invalidApps = (kind: string, name: string, causes: Cause[]): unknown => invalidStatus(kind, name, causes, 'apps');

/** A defaulted container (`pull`: Always for an untagged or :latest image, else IfNotPresent). */
export const defaultedContainer = (name: string, image: string, pull = 'Always') => ({ name, image, resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: pull });

/** A template's metadata and spec with `containers`, defaulted. */
export const defaultedTemplate = (labels: Record<string, string>, containers: unknown[]) => ({
  metadata: { creationTimestamp: null, labels },
  spec: { containers, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler' },
});
