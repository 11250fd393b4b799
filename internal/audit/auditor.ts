/**
 * Audit events (audit.k8s.io/v1 Event, one JSON line each) for the requests the policy selects,
 * with the stages kube-apiserver 1.24 emits: RequestReceived when the request arrives (after
 * authentication), ResponseStarted when a long-running response (a watch) sends its headers,
 * ResponseComplete when the response ended, Panic when the handler failed unexpectedly. A request
 * whose authentication failed gets one ResponseStarted event with an empty user (kube's
 * WithFailedAuthenticationAudit).
 *
 * Secrets (and the token APIs) are logged at Metadata at most whatever the policy says, so their
 * values never reach the log: kube's recommended policies do the same, here it is not left to the
 * operator to get right.
 */
import type { Level, Policy, Stage, AuditAttributes, AuditDecision } from './policy.ts';
import { evaluatePolicy } from './policy.ts';
import type { AuditLogWriter } from './log-writer.ts';

/** Where audit events go: the log file, or (a serving thread, app/workers.ts) the leader's writer. */
export type AuditSink = Pick<AuditLogWriter, 'write' | 'close'>;

/** Resources whose bodies carry credentials: audited at Metadata at most. */
const CREDENTIAL_RESOURCES = new Set(['/secrets', 'authentication.k8s.io/tokenreviews', '/serviceaccounts/token']);

const LEVEL_ORDER: Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const atLeast = (l: Level, min: Level): boolean => LEVEL_ORDER.indexOf(l) >= LEVEL_ORDER.indexOf(min);

/** audit.k8s.io/v1 ObjectReference, in Go field order. */
export interface ObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

/** What the auditor needs of one request. */
export interface AuditRequestInfo {
  auditID: string;
  requestURI: string;
  verb: string;
  user: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } | null;
  sourceIPs: string[];
  userAgent?: string;
  attributes: AuditAttributes;
  objectRef?: ObjectRef;
  /**
   * Annotations authentication recorded (kube's audit.AddAuditAnnotation before the event exists,
   * e.g. `authentication.k8s.io/legacy-token`): the event starts with them, so they appear from
   * RequestReceived on.
   */
  annotations?: Record<string, string>;
}

/** A Status as audit events carry it: everything but kind/apiVersion. */
export type ResponseStatus = Record<string, unknown>;

/** MicroTime as Go formats it: RFC 3339 with 6 fractional digits, UTC. */
export function microTime(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const micros = Math.floor((epochMs - whole) * 1000);
  const iso = new Date(whole).toISOString(); // …T02:47:19.535Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** Milliseconds since the epoch with sub-millisecond precision. */
const nowMs = (): number => performance.timeOrigin + performance.now();

/** Drop metadata.managedFields from an object (and the items of a list). */
function withoutManagedFields(o: unknown): unknown {
  if (!o || typeof o !== 'object') return o;
  const obj = o as Record<string, unknown>;
  const out: Record<string, unknown> = { ...obj };
  if (obj.metadata && typeof obj.metadata === 'object') {
    const { managedFields: _m, ...rest } = obj.metadata as Record<string, unknown>;
    out.metadata = rest;
  }
  if (Array.isArray(obj.items)) out.items = obj.items.map(withoutManagedFields);
  return out;
}

export class Auditor {
  constructor(private readonly policy: Policy, private readonly writer: AuditSink) {}

  /** An event a serving thread audited (app/workers.ts): written here, so lines never interleave. */
  forwarded(line: string): void {
    this.writer.write(line);
  }

  /** The decision for a request, with the credential cap applied. */
  decide(a: AuditAttributes): AuditDecision {
    const d = evaluatePolicy(this.policy, a);
    const gr = `${a.group}/${a.resource}`;
    const credential = a.isResourceRequest && (CREDENTIAL_RESOURCES.has(gr) || CREDENTIAL_RESOURCES.has(`${gr}/${a.subresource}`));
    if (credential && atLeast(d.level, 'Request')) d.level = 'Metadata';
    return d;
  }

  /** Start auditing a request; null when the policy says None. Emits RequestReceived. */
  begin(info: AuditRequestInfo): AuditedRequest | null {
    const d = this.decide(info.attributes);
    if (d.level === 'None') return null;
    const r = new AuditedRequest(this.writer, info, d);
    r.emit('RequestReceived');
    return r;
  }

  /** A request whose authentication failed: one ResponseStarted event with an empty user. */
  failedAuthentication(info: AuditRequestInfo, status: ResponseStatus): void {
    const d = this.decide({ ...info.attributes, user: null });
    if (d.level === 'None') return;
    const r = new AuditedRequest(this.writer, { ...info, user: null }, d);
    r.responseStatus = status;
    r.emit('ResponseStarted');
  }

  /** Flush and close the log. */
  close(): void {
    this.writer.close();
  }
}

export class AuditedRequest {
  readonly level: Level;
  private readonly received = nowMs();
  private readonly annotations: Record<string, string> = {};
  responseStatus: ResponseStatus | undefined;
  requestObject: unknown;
  responseObject: unknown;
  private ended = false;

  constructor(private readonly writer: AuditSink, private readonly info: AuditRequestInfo, private readonly decision: AuditDecision) {
    this.level = decision.level;
    Object.assign(this.annotations, info.annotations);
  }

  /** Whether request / response bodies are logged at this level. */
  get wantsRequestObject(): boolean {
    return atLeast(this.level, 'Request');
  }
  get wantsResponseObject(): boolean {
    return this.level === 'RequestResponse';
  }

  /**
   * The user the request acts as (kube's audit.LogImpersonatedUser): set by the impersonation
   * filter, which runs after RequestReceived was logged, so later stages carry it.
   */
  impersonated(user: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }): void {
    this.impersonatedUser = user;
  }
  private impersonatedUser: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } | undefined;

  annotate(key: string, value: string): void {
    if (!(key in this.annotations)) this.annotations[key] = value;
  }

  /** Fill the object reference's name from the object answered (a create names it only then). */
  nameFrom(obj: unknown): void {
    const name = (obj as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
    if (this.info.objectRef && !this.info.objectRef.name && typeof name === 'string' && name) this.info.objectRef.name = name;
  }

  /** A long-running response sent its headers. */
  started(code: number): void {
    if (this.responseStatus === undefined) this.responseStatus = { metadata: {}, code };
    this.emit('ResponseStarted');
  }

  /** The response ended. Emits ResponseComplete once (nothing after a Panic). */
  complete(code: number): void {
    if (this.ended) return;
    this.ended = true;
    // An error Status captured from the body is kept; otherwise the code alone (kube's success form).
    if (this.responseStatus?.code !== code) this.responseStatus = { metadata: {}, code };
    this.emit('ResponseComplete');
  }

  /** The handler failed unexpectedly (kube: a recovered panic): the Panic stage, once. */
  panic(message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${message}`, reason: 'InternalError', code: 500 };
    this.emit('Panic');
  }

  emit(stage: Stage): void {
    if (this.decision.omitStages.has(stage)) return;
    const i = this.info;
    const strip = (o: unknown): unknown => (this.decision.omitManagedFields ? withoutManagedFields(o) : o);
    const ev: Record<string, unknown> = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.level,
      auditID: i.auditID,
      stage,
      requestURI: i.requestURI,
      verb: i.verb,
      user: i.user ? auditUser(i.user) : {},
      ...(this.impersonatedUser ? { impersonatedUser: auditUser(this.impersonatedUser) } : {}),
      sourceIPs: i.sourceIPs,
      ...(i.userAgent ? { userAgent: i.userAgent } : {}),
      ...(i.objectRef ? { objectRef: { ...i.objectRef } } : {}),
      ...(stage !== 'RequestReceived' && this.responseStatus ? { responseStatus: this.responseStatus } : {}),
      ...(stage !== 'RequestReceived' && this.wantsRequestObject && this.requestObject !== undefined ? { requestObject: strip(this.requestObject) } : {}),
      ...(stage !== 'RequestReceived' && stage !== 'ResponseStarted' && this.wantsResponseObject && this.responseObject !== undefined ? { responseObject: strip(this.responseObject) } : {}),
      requestReceivedTimestamp: microTime(this.received),
      stageTimestamp: microTime(stage === 'RequestReceived' ? this.received : nowMs()),
      // At RequestReceived the only annotations are authentication's (the rest come later).
      ...(Object.keys(this.annotations).length ? { annotations: { ...this.annotations } } : {}),
    };
    this.writer.write(JSON.stringify(ev));
  }
}

/** authentication/v1 UserInfo as an event carries it (Go field order, empty fields left out). */
function auditUser(u: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }): Record<string, unknown> {
  return { username: u.username, ...(u.uid ? { uid: u.uid } : {}), ...(u.groups.length ? { groups: u.groups } : {}), ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}) };
}
