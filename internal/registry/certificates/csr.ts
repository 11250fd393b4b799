/**
 * CertificateSigningRequest (certificates.k8s.io/v1, cluster-scoped, with /status and /approval),
 * after Kubernetes 1.24.17: pkg/registry/certificates/certificates (the requester's username, uid,
 * groups and extra written into the spec on create, status emptied; main-resource updates keep
 * spec and status; /status keeps the spec and the Approved/Denied conditions; /approval changes
 * only the conditions; condition timestamps filled), ValidateCertificateSigningRequest* with the
 * compatibility options (pkg/apis/certificates/validation), printCertificateSigningRequest and the
 * `spec.signerName` field label.
 */
import { X509Certificate } from 'node:crypto';
import type { KubeObject, UserInfo } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, invalid, notSupported, required, tooLong } from '../../api/field-errors.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import type { ResetFieldsStrategy } from '../generic/managed-fields.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { humanDuration } from '../rest/human-duration.ts';
import { isObj } from '../../gocompat/json.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { rfc3339 } from '../generic/serialize.ts';
import { checkCertificationRequest } from './pkcs10.ts';

type J = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const objs = (v: unknown): J[] => (Array.isArray(v) ? v.map((x) => (isObj(x) ? x : {})) : []);
const specOf = (o: KubeObject): J => (isObj(o.spec) ? o.spec : {});
const statusOf = (o: KubeObject): J => (isObj(o.status) ? o.status : {});
/**
 * The printer's column descriptions: kube takes them from certificates/v1beta1's SwaggerDoc
 * (k8s.io/api certificates/v1beta1 types_swagger_doc_generated.go), a version 1.24 no longer
 * serves, whose texts differ from v1's.
 */
const V1BETA1_DOCS = {
  signerName: "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.",
  request: "Base64-encoded PKCS#10 CSR data",
  expirationSeconds: "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.",
  conditions: "Conditions applied to the request, such as approval or denial.",
};

export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
const TRUE_ONLY_TYPES = ['Approved', 'Denied', 'Failed'];
const ALL_STATUS = ['False', 'True', 'Unknown'];
/** allValidUsages, sorted as sets.String.List() sorts. */
const USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment', 'cert sign', 'crl sign', 'encipher only',
  'decipher only', 'any', 'server auth', 'client auth', 'code signing', 'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user',
  'timestamping', 'ocsp signing', 'microsoft sgc', 'netscape sgc',
].sort();

/** spec.request / status.certificate: base64 in JSON, bytes to kube. */
const bytesOf = (v: unknown): Buffer => (typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0));
/** Go's %#v of a []byte. */
const goBytes = (b: Buffer): GoValue => new GoValue(b.length ? `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}` : '[]byte{}');

/** The compatibility options kube derives from the stored object (getValidationOptions). */
interface Options {
  approvalConditions: boolean;
  certificate: boolean;
  bothApprovedAndDenied: boolean;
  legacySigner: boolean;
  duplicateConditionTypes: boolean;
  emptyConditionType: boolean;
  arbitraryCertificate: boolean;
  unknownUsages: boolean;
  duplicateUsages: boolean;
}

/** validateCertificate: '' when the PEM holds only parseable CERTIFICATE blocks, else kube's message. */
function certificateError(pem: Buffer): string {
  if (!pem.length) return '';
  const blocks = [...pem.toString('latin1').matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (!blocks.length) return 'must contain at least one CERTIFICATE PEM block';
  for (const [, type, body] of blocks) {
    if (type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${type}"`;
    if (body!.includes(':')) return 'no PEM block headers are permitted';
    try {
      // node:crypto parses one DER certificate as Go's x509.ParseCertificates does.
      new X509Certificate(Buffer.from(body!.replace(/\s+/g, ''), 'base64'));
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return '';
}

const conditionTypes = (o: KubeObject): string[] => objs(statusOf(o).conditions).map((c) => str(c.type));
const hasDuplicates = (xs: string[]): boolean => new Set(xs).size !== xs.length;

function optionsFor(n: KubeObject, o: KubeObject | undefined): Options {
  const oldTypes = o ? conditionTypes(o) : [];
  const oldUsages = o && Array.isArray(specOf(o).usages) ? (specOf(o).usages as unknown[]).map(str) : [];
  const oldCert = o ? bytesOf(statusOf(o).certificate) : Buffer.alloc(0);
  return {
    approvalConditions: false,
    certificate: false,
    bothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    legacySigner: !!o && str(specOf(o).signerName) === LEGACY_UNKNOWN_SIGNER,
    duplicateConditionTypes: !!o && hasDuplicates(oldTypes),
    emptyConditionType: !!o && oldTypes.includes(''),
    arbitraryCertificate: !!o && (bytesOf(statusOf(n).certificate).equals(oldCert) || certificateError(oldCert) !== ''),
    unknownUsages: oldUsages.some((u) => !USAGES.includes(u)),
    duplicateUsages: hasDuplicates(oldUsages),
  };
}

/** ValidateCertificateSigningRequestSignerName. */
export function validateSignerName(p: FieldPath, signerName: string): FieldError[] {
  if (!signerName) return [required(p, 'signerName must be provided')];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalid(p, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, path] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(tooLong(p, domain, 253));
  const labels = domain.split('.');
  for (const l of labels) {
    const msgs = isDNS1123Label(l);
    for (const m of msgs) errs.push(invalid(p, domain, `validating label "${l}": ${m}`));
    if (msgs.length) break;
  }
  if (labels.length < 2) errs.push(invalid(p, domain, 'should be a domain with at least two segments separated by dots'));
  for (const l of path.split('.')) {
    const msgs = isDNS1123Subdomain(l);
    for (const m of msgs) errs.push(invalid(p, path, `validating label "${l}": ${m}`));
    if (msgs.length) break;
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > max) errs.push(tooLong(p, signerName, max));
  return errs;
}

function validateConditions(o: KubeObject, opts: Options): FieldError[] {
  const p = new FieldPath('status').child('conditions');
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  objs(statusOf(o).conditions).forEach((c, i) => {
    const type = str(c.type);
    const status = str(c.status);
    const tp = p.index(i).child('type');
    if (!opts.emptyConditionType && !type) errs.push(required(tp));
    const allowed = TRUE_ONLY_TYPES.includes(type) ? ['True'] : ALL_STATUS;
    if (!status) errs.push(required(p.index(i).child('status')));
    else if (!allowed.includes(status)) errs.push(notSupported(p.index(i).child('status'), status, allowed));
    if (!opts.bothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(invalid(tp, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(invalid(tp, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.duplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(tp, type));
      seen.add(type);
    }
  });
  return errs;
}

/** validateCertificateSigningRequest minus ObjectMeta. */
function validateCSR(o: KubeObject, opts: Options): FieldError[] {
  const spec = specOf(o);
  const sp = new FieldPath('spec');
  const errs: FieldError[] = [];
  const request = bytesOf(spec.request);
  try {
    checkCertificationRequest(request);
  } catch (e) {
    errs.push(invalid(sp.child('request'), goBytes(request), (e as Error).message));
  }
  const usages = Array.isArray(spec.usages) ? spec.usages.map(str) : [];
  if (!usages.length) errs.push(required(sp.child('usages'), 'usages must be provided'));
  if (!opts.unknownUsages) usages.forEach((u, i) => USAGES.includes(u) || errs.push(notSupported(sp.child('usages').index(i), u, USAGES)));
  if (!opts.duplicateUsages) usages.forEach((u, i) => usages.indexOf(u) < i && errs.push(duplicate(sp.child('usages').index(i), u)));
  const signerName = str(spec.signerName);
  if (!opts.legacySigner && signerName === LEGACY_UNKNOWN_SIGNER) errs.push(invalid(sp.child('signerName'), signerName, 'the legacy signerName is not allowed via this API version'));
  else errs.push(...validateSignerName(sp.child('signerName'), signerName));
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(invalid(sp.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(o, opts));
  if (!opts.arbitraryCertificate) {
    const msg = certificateError(bytesOf(statusOf(o).certificate));
    if (msg) errs.push(invalid(new FieldPath('status').child('certificate'), '<certificate data>', msg));
  }
  return errs;
}

const ofType = (o: KubeObject, t: string): J[] => objs(statusOf(o).conditions).filter((c) => c.type === t);

/** validateCertificateSigningRequestUpdate minus ObjectMeta (the store checks it). */
function validateUpdate(n: KubeObject, o: KubeObject, opts: Options): FieldError[] {
  const errs = validateCSR(n, opts);
  const cp = new FieldPath('status').child('conditions');
  for (const t of TRUE_ONLY_TYPES) if (ofType(n, t).length < ofType(o, t).length) errs.push(forbidden(cp, `updates may not remove a condition of type "${t}"`));
  if (!opts.approvalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const [nc, oc] = [ofType(n, t), ofType(o, t)];
      if (nc.length > oc.length) errs.push(forbidden(cp, `updates may not add a condition of type "${t}"`));
      else if (nc.length === oc.length && !semanticEqual(nc, oc)) errs.push(forbidden(cp, `updates may not modify a condition of type "${t}"`));
    }
  }
  const [nCert, oCert] = [bytesOf(statusOf(n).certificate), bytesOf(statusOf(o).certificate)];
  if (!nCert.equals(oCert)) {
    const certPath = new FieldPath('status').child('certificate');
    if (!opts.certificate) errs.push(forbidden(certPath, 'updates may not set certificate content'));
    else if (oCert.length > 0) errs.push(forbidden(certPath, 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** PrepareForCreate: the requester fills username, uid, groups and extra; the status starts empty. */
function prepareForCreate(o: KubeObject, user?: UserInfo): void {
  const spec: J = isObj(o.spec) ? o.spec : (o.spec = {});
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (user?.username) spec.username = user.username;
  if (user?.uid) spec.uid = user.uid;
  if (user?.groups.length) spec.groups = [...user.groups];
  if (user?.extra && Object.keys(user.extra).length) spec.extra = structuredClone(user.extra);
  o.status = {};
}

const keep = (n: KubeObject, o: KubeObject, field: 'spec' | 'status'): void => {
  if (o[field] === undefined) delete n[field];
  else n[field] = structuredClone(o[field]);
};

/** populateConditionTimestamps: unset times become now; lastTransitionTime carries over an unchanged condition's. */
function populateTimestamps(n: KubeObject, o: KubeObject): void {
  const now = rfc3339(new Date());
  for (const c of Array.isArray(statusOf(n).conditions) ? (statusOf(n).conditions as unknown[]) : []) {
    if (!isObj(c)) continue;
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const prev = objs(statusOf(o).conditions).find((x) => x.type === c.type && x.status === c.status && x.lastTransitionTime);
      c.lastTransitionTime = prev ? prev.lastTransitionTime : now;
    }
  }
}

/** preserveConditionInstances: the stored conditions of type `t` replace the new ones, when as many. */
function preserveConditions(n: KubeObject, o: KubeObject, t: string): void {
  const nc = Array.isArray(statusOf(n).conditions) ? (statusOf(n).conditions as unknown[]) : [];
  const newIdx = nc.flatMap((c, i) => (isObj(c) && c.type === t ? [i] : []));
  const old = ofType(o, t);
  if (newIdx.length !== old.length) return;
  newIdx.forEach((i, k) => (nc[i] = structuredClone(old[k])));
}

export const csrStrategy: Strategy & ResetFieldsStrategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  resetFields: ['spec', 'status'],
  prepareForCreate,
  prepareForUpdate(n, o) {
    keep(n, o, 'spec');
    keep(n, o, 'status');
  },
  validate: (o) => validateCSR(o, optionsFor(o, undefined)),
  validateUpdate: (n, o) => validateUpdate(n, o, optionsFor(n, o)),
};

/** /status: the stored spec and Approved/Denied conditions win; a certificate may be set once. */
export const csrStatusStrategy: StatusStrategy & ResetFieldsStrategy = {
  resetFields: ['spec', 'status.conditions'],
  prepareForUpdate(n, o) {
    keep(n, o, 'spec');
    if (!isObj(n.status)) n.status = {};
    preserveConditions(n, o, 'Approved');
    preserveConditions(n, o, 'Denied');
    populateTimestamps(n, o);
  },
  validateUpdate: (n, o) => validateUpdate(n, o, { ...optionsFor(n, o), certificate: true }),
};

/** /approval: only status.conditions change. */
export const csrApprovalStrategy: StatusStrategy & ResetFieldsStrategy = {
  resetFields: ['spec', 'status.certificate'],
  prepareForUpdate(n, o) {
    populateTimestamps(n, o);
    const conditions = statusOf(n).conditions;
    keep(n, o, 'spec');
    keep(n, o, 'status');
    if (!isObj(n.status)) n.status = {};
    if (conditions === undefined) delete (n.status as J).conditions;
    else (n.status as J).conditions = conditions;
  },
  validateUpdate: (n, o) => validateUpdate(n, o, { ...optionsFor(n, o), approvalConditions: true }),
};

/** extractCSRStatus: Denied, Approved or Pending, then ",Failed" and ",Issued". */
export function csrCondition(o: KubeObject): string {
  const types = conditionTypes(o);
  let s = types.includes('Denied') ? 'Denied' : types.includes('Approved') ? 'Approved' : 'Pending';
  if (types.includes('Failed')) s += ',Failed';
  if (bytesOf(statusOf(o).certificate).length) s += ',Issued';
  return s;
}

/** printCertificateSigningRequest. */
export const csrTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    { name: 'SignerName', type: 'string', description: V1BETA1_DOCS.signerName, priority: 0 },
    { name: 'Requestor', type: 'string', description: V1BETA1_DOCS.request, priority: 0 },
    { name: 'RequestedDuration', type: 'string', description: V1BETA1_DOCS.expirationSeconds, priority: 0 },
    { name: 'Condition', type: 'string', description: V1BETA1_DOCS.conditions, priority: 0 },
  ],
  cells(o) {
    const spec = specOf(o);
    const secs = spec.expirationSeconds;
    return [o.metadata.name ?? '', creationTimestampCell(o), str(spec.signerName) || '<none>', str(spec.username), typeof secs === 'number' ? humanDuration(secs * 1000) : '<none>', csrCondition(o)];
  },
};

/** certificates.k8s.io/v1 certificatesigningrequests; delete answers a Status. */
export const csrKind: KindDescriptor = {
  group: 'certificates.k8s.io',
  versions: ['v1'],
  resource: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  kind: 'CertificateSigningRequest',
  listKind: 'CertificateSigningRequestList',
  namespaced: false,
  nameFormat: 'pathSegment',
  shortNames: ['csr'],
  strategy: csrStrategy,
  subresources: [
    { name: 'approval', verbs: ['get', 'patch', 'update'], strategy: csrApprovalStrategy },
    { name: 'status', verbs: ['get', 'patch', 'update'], strategy: csrStatusStrategy },
  ],
  table: csrTable,
  fieldSelectors: { 'spec.signerName': (o) => str(specOf(o).signerName) },
  deleteReturns: 'Status',
};
