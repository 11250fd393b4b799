/**
 * kube-apiserver's cluster_authentication_trust_controller (pkg/controlplane/controller/
 * clusterauthenticationtrust, 1.24): publishes how this server authenticates clients, for
 * aggregated API servers (`--authentication-kubeconfig` delegation reads it), in the ConfigMap
 * kube-system/extension-apiserver-authentication:
 *
 *   client-ca-file                      the client CA bundle (PEM)
 *   requestheader-client-ca-file        the proxy CA bundle (PEM)        ┐ only when a
 *   requestheader-allowed-names         JSON list, e.g. ["front-proxy"]  │ requestheader CA
 *   requestheader-username-headers      JSON list, e.g. ["X-Remote-User"]│ is configured
 *   requestheader-group-headers         JSON list                        │
 *   requestheader-extra-headers-prefix  JSON list                        ┘
 *
 * As kube, what is already published is merged with what this server requires (other API servers
 * of the cluster publish theirs too): lists are unions in order, CA bundles are the union of both
 * minus certificates expired more than five minutes ago, without duplicates. A sync runs at start,
 * when the ConfigMap changes (someone edits or deletes it), when a CA bundle file is reloaded,
 * and every minute. Replica-safe: an
 * update carries the resourceVersion it was computed from, a create that loses is retried as an
 * update on the next sync, and every replica computes the same merge.
 */
import { X509Certificate } from 'node:crypto';
import { certificateBlocks } from '../auth/client-ca.ts';
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { getOrNull } from './namespace-reconciler.ts';
import type { Controller } from './controller.ts';

export const AUTH_CONFIGMAP_NAMESPACE = 'kube-system';
export const AUTH_CONFIGMAP_NAME = 'extension-apiserver-authentication';
/** kube re-queues the sync on this period (PollImmediateUntil(1*time.Minute)). */
const RESYNC_MS = 60_000;
/** filterExpiredCerts: certificates that expired longer ago than this are dropped. */
const EXPIRED_GRACE_MS = 5 * 60_000;

export interface ClusterAuthenticationInfo {
  clientCA?: X509Certificate[];
  requestHeaderCA?: X509Certificate[];
  requestHeaderUsernameHeaders?: string[];
  requestHeaderGroupHeaders?: string[];
  requestHeaderExtraHeaderPrefixes?: string[];
  requestHeaderAllowedNames?: string[];
}

function certsOf(pem: string | undefined): X509Certificate[] | undefined {
  if (!pem) return undefined;
  return certificateBlocks(pem).map((b) => new X509Certificate(b));
}

function listOf(json: string | undefined): string[] | undefined {
  if (!json) return undefined;
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? v.map(String) : [];
}

/** getClusterAuthenticationInfoFor: what a published ConfigMap's data says. */
export function infoFromData(data: Record<string, string>): ClusterAuthenticationInfo {
  return {
    requestHeaderGroupHeaders: listOf(data['requestheader-group-headers']),
    requestHeaderExtraHeaderPrefixes: listOf(data['requestheader-extra-headers-prefix']),
    requestHeaderAllowedNames: listOf(data['requestheader-allowed-names']),
    requestHeaderUsernameHeaders: listOf(data['requestheader-username-headers']),
    requestHeaderCA: certsOf(data['requestheader-client-ca-file']),
    clientCA: certsOf(data['client-ca-file']),
  };
}

function union(a: string[] | undefined, b: string[] | undefined): string[] {
  const out: string[] = [];
  for (const x of [...(a ?? []), ...(b ?? [])]) if (!out.includes(x)) out.push(x);
  return out;
}

function combineCerts(a: X509Certificate[] | undefined, b: X509Certificate[] | undefined, now: number): X509Certificate[] | undefined {
  const out: X509Certificate[] = [];
  for (const c of [...(a ?? []), ...(b ?? [])]) {
    if (Date.parse(c.validTo) <= now - EXPIRED_GRACE_MS) continue;
    if (!out.some((o) => o.raw.equals(c.raw))) out.push(c);
  }
  return out.length ? out : undefined;
}

/** combinedClusterAuthenticationInfo. */
export function combineInfo(existing: ClusterAuthenticationInfo, required: ClusterAuthenticationInfo, now = Date.now()): ClusterAuthenticationInfo {
  return {
    requestHeaderAllowedNames: union(existing.requestHeaderAllowedNames, required.requestHeaderAllowedNames),
    requestHeaderExtraHeaderPrefixes: union(existing.requestHeaderExtraHeaderPrefixes, required.requestHeaderExtraHeaderPrefixes),
    requestHeaderGroupHeaders: union(existing.requestHeaderGroupHeaders, required.requestHeaderGroupHeaders),
    requestHeaderUsernameHeaders: union(existing.requestHeaderUsernameHeaders, required.requestHeaderUsernameHeaders),
    clientCA: combineCerts(existing.clientCA, required.clientCA, now),
    requestHeaderCA: combineCerts(existing.requestHeaderCA, required.requestHeaderCA, now),
  };
}

/** Go's pem.Encode of each certificate: 64-column base64 lines. */
function pemOf(certs: X509Certificate[]): string {
  return certs.map((c) => `-----BEGIN CERTIFICATE-----\n${c.raw.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`).join('');
}

/** getConfigMapDataFor: the data map (keys sorted, as Go's map encoding writes them). */
export function dataFor(info: ClusterAuthenticationInfo): Record<string, string> {
  const data: Record<string, string> = {};
  if (info.clientCA?.length) data['client-ca-file'] = pemOf(info.clientCA);
  if (info.requestHeaderCA?.length) {
    data['requestheader-allowed-names'] = JSON.stringify(info.requestHeaderAllowedNames ?? []);
    data['requestheader-client-ca-file'] = pemOf(info.requestHeaderCA);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(info.requestHeaderExtraHeaderPrefixes ?? []);
    data['requestheader-group-headers'] = JSON.stringify(info.requestHeaderGroupHeaders ?? []);
    data['requestheader-username-headers'] = JSON.stringify(info.requestHeaderUsernameHeaders ?? []);
  }
  return data;
}

function sameData(a: unknown, b: Record<string, string>): boolean {
  const x = (a && typeof a === 'object' ? a : {}) as Record<string, unknown>;
  const ka = Object.keys(x);
  return ka.length === Object.keys(b).length && ka.every((k) => x[k] === b[k]);
}

export class ClusterAuthenticationTrustController implements Controller {
  private readonly configMaps: ServedKind;
  private readonly ctx = systemContext('kube-apiserver');
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private running: Promise<void> = Promise.resolve();
  private queued = false;

  /** `required` is read at every sync: CA bundles reloaded from their files are published. */
  constructor(private readonly storage: Storage, registry: Registry, private readonly required: () => ClusterAuthenticationInfo, private readonly log: Logger) {
    const cm = registry.lookup('', 'v1', 'configmaps');
    if (!cm) throw new Error('cluster_authentication_trust_controller: the configmaps resource is not registered');
    this.configMaps = cm;
  }

  /** First sync (awaited: the ConfigMap exists once the server listens), then change- and time-driven ones. */
  async start(): Promise<void> {
    await this.sync().catch((err: unknown) => this.log.warn({ err }, 'extension-apiserver-authentication: sync failed; retried'));
    this.unsubscribe = this.storage.onChange((changes) => {
      if (changes.some((c) => c.key.group === '' && c.key.resource === 'configmaps' && c.key.namespace === AUTH_CONFIGMAP_NAMESPACE && c.key.name === AUTH_CONFIGMAP_NAME)) this.enqueue();
    });
    this.timer = setInterval(() => this.enqueue(), RESYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Resolves when no sync is running. */
  idle(): Promise<void> {
    return this.running;
  }

  /** Queue a sync (e.g. a CA bundle file changed). */
  enqueue(): void {
    if (this.queued || !this.unsubscribe) return;
    this.queued = true;
    this.running = this.running.then(async () => {
      this.queued = false;
      await this.sync().catch((err: unknown) => {
        this.log.warn({ err }, 'extension-apiserver-authentication: sync failed; retried');
        setTimeout(() => this.enqueue(), 1000).unref();
      });
    });
  }

  /** syncConfigMap: merge what is published with what is required, write when it differs. */
  async sync(): Promise<void> {
    const current = await getOrNull(this.configMaps, AUTH_CONFIGMAP_NAMESPACE, AUTH_CONFIGMAP_NAME);
    const existing = infoFromData((current?.data ?? {}) as Record<string, string>);
    const data = dataFor(combineInfo(existing, this.required()));
    if (current && sameData(current.data, data)) return;
    if (current) {
      const object: KubeObject = structuredClone(current);
      object.data = data;
      await this.configMaps.store.update(this.ctx, AUTH_CONFIGMAP_NAMESPACE, AUTH_CONFIGMAP_NAME, object);
      return;
    }
    const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTH_CONFIGMAP_NAME, namespace: AUTH_CONFIGMAP_NAMESPACE }, data };
    await this.configMaps.store.create(this.ctx, AUTH_CONFIGMAP_NAMESPACE, object).catch((err: unknown) => {
      // Another replica created it first: the change it made queues the next sync.
      if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
    });
  }
}
