/**
 * AdmissionReview requests and the checks on a webhook's answer (kube's
 * webhook/request/admissionreview.go): v1 or v1beta1, the first of the webhook's
 * admissionReviewVersions this server speaks.
 */
import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from '../chain.ts';
import type { KubeObject } from '../../api/types.ts';
import { nameIsGenerated, requestKind, type WebhookInvocation } from './match.ts';

export interface AdmissionResponse {
  allowed: boolean;
  /** The patch's bytes (mutating only; decoded by the dispatcher after `allowed` is checked). */
  patch: Buffer | null;
  patchType: string;
  result: Record<string, unknown> | undefined;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** A review to send: its uid, version and body. */
export interface AdmissionReviewRequest {
  uid: string;
  version: 'v1' | 'v1beta1';
  body: Record<string, unknown>;
}

/**
 * CreateAdmissionObjects: the review in the first accepted version (validation guarantees one).
 * `object`/`oldObject` are in the invocation's version (the caller converted them).
 */
export function createReview(a: AdmissionAttributes, inv: WebhookInvocation, object: KubeObject | null, oldObject: KubeObject | null): AdmissionReviewRequest {
  const version = inv.webhook.admissionReviewVersions.find((v) => v === 'v1' || v === 'v1beta1') as 'v1' | 'v1beta1' | undefined;
  if (!version) throw new Error('webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  const uid = randomUUID();
  const requestVersion = a.version ?? a.kind.versions[0];
  const userInfo: Record<string, unknown> = { username: a.user.username };
  if (a.user.uid) userInfo.uid = a.user.uid;
  if (a.user.groups?.length) userInfo.groups = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length) userInfo.extra = a.user.extra;
  const request: Record<string, unknown> = {
    uid,
    kind: { group: inv.kind.group, version: inv.kind.version, kind: inv.kind.kind },
    resource: { group: inv.resource.group, version: inv.resource.version, resource: inv.resource.resource },
    ...(inv.subresource ? { subResource: inv.subresource } : {}),
    requestKind: requestKind(a),
    requestResource: { group: a.kind.group, version: requestVersion, resource: a.kind.resource },
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name && !nameIsGenerated(a) ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo,
    object: object ?? null,
    oldObject: oldObject ?? null,
    dryRun: a.dryRun,
    options: a.options ?? null,
  };
  return { uid, version, body: { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request } };
}

/** VerifyAdmissionResponse: the answer's checks; throws the reason text kube gives. */
export function verifyResponse(review: AdmissionReviewRequest, answer: unknown, mutating: boolean): AdmissionResponse {
  const r = (answer ?? {}) as Record<string, any>;
  const resp = r.response as Record<string, any> | undefined | null;
  if (!resp || typeof resp !== 'object') throw new Error('webhook response was absent');
  let patchType = '';
  let patchB64: string | undefined = typeof resp.patch === 'string' && resp.patch.length ? resp.patch : undefined;
  if (review.version === 'v1') {
    if ((resp.uid ?? '') !== review.uid) throw new Error(`expected response.uid=${JSON.stringify(review.uid)}, got ${JSON.stringify(resp.uid ?? '')}`);
    const gv = String(r.apiVersion ?? '');
    const slash = gv.lastIndexOf('/');
    if (gv !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview') {
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${slash >= 0 ? `${gv.slice(0, slash)}/${gv.slice(slash + 1)}` : gv ? `/${gv}` : '/'}, Kind=${r.kind ?? ''}`);
    }
    if (mutating) {
      const hasType = resp.patchType !== undefined && resp.patchType !== null;
      if (patchB64 && !hasType) throw new Error('webhook returned response.patch but not response.patchType');
      if (!patchB64 && hasType) throw new Error('webhook returned response.patchType but not response.patch');
      if (hasType) {
        patchType = String(resp.patchType);
        if (!patchType) throw new Error(`webhook returned invalid response.patchType of ""`);
      }
    } else {
      if (patchB64) throw new Error('validating webhook may not return response.patch');
      if (resp.patchType !== undefined && resp.patchType !== null) throw new Error('validating webhook may not return response.patchType');
    }
  } else {
    // v1beta1 answers are not checked for uid or kind; a patch is always a JSONPatch.
    if (!mutating) patchB64 = undefined;
    if (patchB64) patchType = 'JSONPatch';
  }
  return {
    allowed: resp.allowed === true,
    patch: patchB64 ? Buffer.from(patchB64, 'base64') : null,
    patchType,
    result: resp.status && typeof resp.status === 'object' ? (resp.status as Record<string, unknown>) : undefined,
    warnings: Array.isArray(resp.warnings) ? resp.warnings.map(String) : [],
    auditAnnotations: resp.auditAnnotations && typeof resp.auditAnnotations === 'object' ? (resp.auditAnnotations as Record<string, string>) : {},
  };
}
