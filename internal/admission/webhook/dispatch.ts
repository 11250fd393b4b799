/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (kube-apiserver 1.24's
 * webhook/mutating and webhook/validating dispatchers):
 * - mutating webhooks run one after another in configuration-name order; each may answer a
 *   JSONPatch, applied to the object at once; with reinvocationPolicy IfNeeded a webhook runs once
 *   more when a later webhook or plugin changed the object (see ReinvocationContext);
 * - validating webhooks run in parallel on the final object; the first error to arrive wins;
 * - a denial answers the webhook's Status, its message prefixed with
 *   `admission webhook "<name>" denied the request`; a failed call (unreachable, timeout, bad
 *   answer) is ignored under failurePolicy Ignore and a 500 under Fail;
 * - a dry-run request fails (400) at a matching webhook whose sideEffects is not None/NoneOnDryRun;
 * - warnings go to `Warning` headers, auditAnnotations to the audit event as `<webhook>/<key>`;
 * - webhook configurations themselves are never sent to webhooks.
 */
import type { AdmissionAttributes, MutatingPlugin, ValidatingPlugin } from '../chain.ts';
import type { KubeObject } from '../../api/types.ts';
import { ApiError, badRequest, internalError } from '../../api/errors.ts';
import { applyWebhookPatch } from './json-patch.ts';
import { canonicalObject, decodeRequestBody } from '../../decode/body.ts';

import { isWebhookConfigurationResource, nameIsGenerated, requestResource, shouldCallHook, type EquivalentResources, type GroupVersionResource, type WebhookInvocation } from './match.ts';
import { createReview, verifyResponse, type AdmissionResponse, type AdmissionReviewRequest } from './review.ts';
import { CallError, callWebhook, webhookAgent } from './client.ts';
import type { Webhook, WebhookSource } from './source.ts';
import { NO_SIDE_EFFECTS } from '../../registry/admissionregistration/validation.ts';
import { jsonEqual } from '../../gocompat/equal.ts';

export const MUTATING_PLUGIN = 'MutatingAdmissionWebhook';
export const VALIDATING_PLUGIN = 'ValidatingAdmissionWebhook';


/** Converts an object between two resources that serve the same stored objects. */
export interface ObjectConverter extends EquivalentResources {
  convert(obj: KubeObject, from: GroupVersionResource, to: GroupVersionResource): KubeObject;
}

/** One webhook call's outcome, for metrics (kube's apiserver_admission_webhook_* families). */
export interface WebhookObservation {
  name: string;
  type: 'admit' | 'validating';
  operation: string;
  rejected: boolean;
  /** 200, the denial's or the failure's code, or 0 for the server's own error. */
  code: number;
  seconds: number;
  failedOpen: boolean;
  /** Why it was rejected: 'no_error' (a denial), 'calling_webhook_error', 'apiserver_internal_error'. */
  rejectionCode?: string;
}

/** What the dispatchers read: the configurations and the namespaces/services they refer to. */
export type WebhookLookups = Pick<WebhookSource, 'webhooks' | 'namespaceLabels' | 'service'>;

export interface WebhookDeps {
  source: WebhookLookups;
  /** matchPolicy Equivalent's other versions, and conversion to them (absent: none). */
  converter?: ObjectConverter;
  observe?: (o: WebhookObservation) => void;
}

/**
 * webhookReinvokeContext: what the mutating plugin remembers between the two rounds.
 * `previouslyInvoked` holds the IfNeeded webhooks called so far; when the object changes after
 * them they move to `reinvoke`, the set the second round calls.
 */
interface ReinvokeState {
  lastOutput: KubeObject | null;
  previouslyInvoked: Set<string>;
  reinvoke: Set<string>;
}

/** A webhook's denial (kube's ErrWebhookRejection): the request's answer is its Status. */
export class WebhookDenial extends ApiError {}

/** errors.ToStatusErr: the webhook's Status as the request's answer. */
export function toStatusError(webhookName: string, result: Record<string, unknown> | undefined): WebhookDenial {
  const r = result ?? {};
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const status = typeof r.status === 'string' && r.status && r.status !== 'Success' ? r.status : 'Failure';
  const reason = typeof r.reason === 'string' ? r.reason : '';
  const message = typeof r.message === 'string' && r.message ? `${deniedBy}: ${r.message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const body: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: r.metadata && typeof r.metadata === 'object' ? r.metadata : {}, status, message };
  if (reason) body.reason = reason;
  if (r.details && typeof r.details === 'object' && Object.keys(r.details).length) body.details = r.details;
  body.code = code;
  return new WebhookDenial(body as unknown as ApiError['status']);
}

const dryRunUnsupported = (name: string): ApiError => badRequest(`admission webhook ${JSON.stringify(name)} does not support dry run`);

/** Fields the store sets on a new object before admission that kube sets only after it (BeforeCreate). */
const LATE_CREATE_FIELDS = ['uid', 'creationTimestamp', 'generation'] as const;

/** Replace `target`'s contents with `source`'s, keeping the reference the store holds. */
function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, source);
}

function sameResource(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

class Dispatcher {
  /** Connections to the webhooks, reused between calls. */
  private readonly agent = webhookAgent();

  constructor(private readonly deps: WebhookDeps) {}

  /** The object in the invocation's version (a copy; the request's own when it is the same). */
  toInvocation(obj: KubeObject | null, a: AdmissionAttributes, inv: WebhookInvocation, late = false): KubeObject | null {
    if (!obj) return null;
    const req = requestResource(a);
    const copy = structuredClone(obj);
    // kube calls mutating webhooks on a create before BeforeCreate sets the uid, creation time
    // and generation; Go encodes the zero creationTimestamp as null.
    if (late) {
      for (const f of LATE_CREATE_FIELDS) delete copy.metadata[f];
      (copy.metadata as Record<string, unknown>).creationTimestamp = null;
      // …and before a generateName is turned into a name.
      if (nameIsGenerated(a)) delete copy.metadata.name;
    }
    // A view (a scale's Scale) is the same kind in every version of its parent: not converted.
    const out = sameResource(req, inv.resource) || !this.deps.converter || a.view ? copy : this.deps.converter.convert(copy, req, inv.resource);
    // Sent as Go encodes the versioned object (field order).
    return canonicalObject(out, inv.kind);
  }

  fromInvocation(obj: KubeObject, a: AdmissionAttributes, inv: WebhookInvocation): KubeObject {
    const req = requestResource(a);
    return sameResource(req, inv.resource) || !this.deps.converter || a.view ? obj : this.deps.converter.convert(obj, inv.resource, req);
  }

  /** ShouldCallHook against the request as it is now (a mutating webhook may have relabelled it). */
  invocation(hook: Webhook, a: AdmissionAttributes): WebhookInvocation | null {
    return shouldCallHook(hook, a, (name) => this.deps.source.namespaceLabels(name), this.deps.converter);
  }

  /**
   * One call: dry-run check, the review, the HTTPS round trip, the answer's checks, its warnings
   * and audit annotations. Returns the answer when allowed; throws the denial, a CallError, or
   * the dry-run 400.
   */
  async call(hook: Webhook, inv: WebhookInvocation, a: AdmissionAttributes, object: KubeObject | null, oldObject: KubeObject | null, mutating: boolean): Promise<AdmissionResponse> {
    if (a.dryRun && !NO_SIDE_EFFECTS.includes(hook.sideEffects)) throw dryRunUnsupported(hook.name);
    let review: AdmissionReviewRequest;
    try {
      review = createReview(a, inv, object, oldObject);
    } catch (e) {
      throw new CallError(hook.name, `could not create admission objects: ${(e as Error).message}`);
    }
    const answer = await callWebhook(hook, (n, s) => this.deps.source.service(n, s), review.body, this.agent);
    let resp: AdmissionResponse;
    try {
      resp = verifyResponse(review, answer, mutating);
    } catch (e) {
      throw new CallError(hook.name, `received invalid webhook response: ${(e as Error).message}`, 503);
    }
    for (const [k, v] of Object.entries(resp.auditAnnotations)) a.annotate?.(`${hook.name}/${k}`, String(v));
    for (const w of resp.warnings) a.warn?.(w);
    if (!resp.allowed) throw toStatusError(hook.name, resp.result);
    return resp;
  }

  observe(hook: Webhook, type: 'admit' | 'validating', a: AdmissionAttributes, started: number, err: unknown, failedOpen: boolean): void {
    if (!this.deps.observe) return;
    const seconds = (performance.now() - started) / 1000;
    const base = { name: hook.name, type, operation: a.operation, seconds, failedOpen };
    if (!err) this.deps.observe({ ...base, rejected: false, code: 200 });
    else if (err instanceof CallError) this.deps.observe({ ...base, rejected: !failedOpen, code: err.code, rejectionCode: failedOpen ? undefined : 'calling_webhook_error' });
    else if (err instanceof WebhookDenial) this.deps.observe({ ...base, rejected: true, code: err.code, rejectionCode: 'no_error' });
    else this.deps.observe({ ...base, rejected: true, code: 0, rejectionCode: 'apiserver_internal_error' });
  }
}

/** MutatingAdmissionWebhook: the last mutating plugin. */
export function mutatingWebhooks(deps: WebhookDeps): MutatingPlugin {
  const d = new Dispatcher(deps);
  return {
    name: MUTATING_PLUGIN,
    admit(a: AdmissionAttributes) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (isWebhookConfigurationResource(a) || deps.source.webhooks('mutating').length === 0) return;
      return admitAll(a);
    },
  };

  async function admitAll(a: AdmissionAttributes): Promise<void> {
    const rc = a.reinvocation;
    let state = rc?.values.get(MUTATING_PLUGIN) as ReinvokeState | undefined;
    if (!state) {
      state = { lastOutput: null, previouslyInvoked: new Set(), reinvoke: new Set() };
      rc?.values.set(MUTATING_PLUGIN, state);
    }
    const st = state;
    const requireReinvoking = (): void => {
      for (const uid of st.previouslyInvoked) st.reinvoke.add(uid);
    };
    // Another plugin changed the object after the webhooks' first round: reinvoke them.
    if (rc?.isReinvoke && !jsonEqual(st.lastOutput, a.object)) requireReinvoking();
    const round = rc?.isReinvoke ? 1 : 0;
    try {
      // Matched one by one: the object selector sees what the webhooks before changed.
      for (const [index, hook] of deps.source.webhooks('mutating').entries()) {
        const inv = d.invocation(hook, a);
        if (!inv) continue;
        if (rc?.isReinvoke && !st.reinvoke.has(hook.uid)) continue;
        const started = performance.now();
        let changed = false;
        let err: unknown;
        try {
          changed = await callMutating(d, hook, inv, a);
        } catch (e) {
          err = e;
        }
        a.annotate?.(`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed }));
        if (changed) {
          requireReinvoking();
          if (rc) rc.shouldReinvoke = true;
        }
        if (hook.reinvocationPolicy === 'IfNeeded') st.previouslyInvoked.add(hook.uid);
        const failedOpen = err instanceof CallError && hook.failurePolicy === 'Ignore';
        d.observe(hook, 'admit', a, started, err, failedOpen);
        if (!err) continue;
        if (err instanceof CallError) {
          if (failedOpen) {
            a.annotate?.(`failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${index}`, hook.name);
            continue;
          }
          throw internalError(err.message);
        }
        throw err;
      }
    } finally {
      st.lastOutput = a.object ? structuredClone(a.object) : null;
    }
  }
}

/**
 * callAttrMutatingHook: call, then apply the JSONPatch to the object as sent; the result is
 * decoded as the kind (unknown fields dropped) and replaces the request's object. Answers whether
 * the object changed.
 */
async function callMutating(d: Dispatcher, hook: Webhook, inv: WebhookInvocation, a: AdmissionAttributes): Promise<boolean> {
  const sent = d.toInvocation(a.object, a, inv, a.operation === 'CREATE');
  const resp = await d.call(hook, inv, a, sent, d.toInvocation(a.oldObject, a, inv), true);
  if (!resp.patch || resp.patch.length === 0) return false;
  let ops: unknown;
  try {
    ops = JSON.parse(resp.patch.toString('utf8'));
  } catch (e) {
    throw internalError((e as Error).message);
  }
  if (!Array.isArray(ops)) throw internalError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (ops.length === 0) return false;
  if (!a.object || !sent) throw internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
  if (resp.patchType !== 'JSONPatch') throw new CallError(hook.name, `unsupported patch type ${JSON.stringify(resp.patchType)}`);
  let patched: KubeObject;
  try {
    patched = applyWebhookPatch(sent, ops) as KubeObject;
  } catch (e) {
    throw internalError((e as Error).message);
  }
  if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw internalError('the patched object is not an object');
  let decoded: KubeObject;
  try {
    decoded = a.view ? a.view.decode(patched) : (decodeRequestBody(patched, { group: inv.kind.group, versions: [inv.kind.version], kind: inv.kind.kind }, 'Ignore').object as KubeObject);
  } catch (e) {
    throw internalError((e as Error).message);
  }
  if (!decoded.metadata || typeof decoded.metadata !== 'object') decoded.metadata = {};
  const changed = !jsonEqual(sent, decoded);
  const back = d.fromInvocation(decoded, a, inv);
  if (a.operation === 'CREATE') {
    for (const f of LATE_CREATE_FIELDS) if (a.object.metadata[f] !== undefined) (back.metadata as Record<string, unknown>)[f] = a.object.metadata[f];
    if (nameIsGenerated(a)) back.metadata.name = a.object.metadata.name;
  }
  replaceContents(a.object, back);
  if (changed) a.objectPatched = true;
  return changed;
}

/** ValidatingAdmissionWebhook: the last validating plugin. */
export function validatingWebhooks(deps: WebhookDeps): ValidatingPlugin {
  const d = new Dispatcher(deps);
  return {
    name: VALIDATING_PLUGIN,
    validate(a: AdmissionAttributes) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (isWebhookConfigurationResource(a) || deps.source.webhooks('validating').length === 0) return;
      return validateAll(a);
    },
  };

  async function validateAll(a: AdmissionAttributes): Promise<void> {
    const relevant = deps.source
      .webhooks('validating')
      .map((hook) => ({ hook, inv: d.invocation(hook, a) }))
      .filter((m) => m.inv !== null);
    if (relevant.length === 0) return;
    // Every matching webhook is called at once; errors are kept in the order they arrive.
    const errors: unknown[] = [];
    await Promise.all(
      relevant.map(async ({ hook, inv }, idx) => {
        const started = performance.now();
        try {
          await d.call(hook, inv!, a, d.toInvocation(a.object, a, inv!), d.toInvocation(a.oldObject, a, inv!), false);
          d.observe(hook, 'validating', a, started, undefined, false);
        } catch (e) {
          const failedOpen = e instanceof CallError && hook.failurePolicy === 'Ignore';
          d.observe(hook, 'validating', a, started, e, failedOpen);
          if (failedOpen) {
            a.annotate?.(`failed-open.validating.webhook.admission.k8s.io/round_0_index_${idx}`, hook.name);
            return;
          }
          errors.push(e instanceof CallError ? internalError(e.message) : e);
        }
      }),
    );
    if (errors.length) throw errors[0];
  }
}
