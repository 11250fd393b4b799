/**
 * The fold: a pure function from (what the index says about the key, the event) to a verdict.
 * Every replica runs it over the same log in the same order, so every replica reaches the same
 * verdicts — this is what makes an unconditional append log behave like a compare-and-swap store.
 *
 * Example: two writers both append `CREATE cm/x` (offsets 7 and 8). Folding 7 sees no entry →
 * accept, index[x] = {rv: 7}. Folding 8 sees index[x] → reject AlreadyExists. Both writers, on
 * any replica, read the same verdicts for 7 and 8.
 */
import type { FoldEvent } from '../log/event.ts';
import { isEncryptedObject, stampEncrypted } from '../encryption/stamp.ts';
import { concatOwn } from '../own-buffer.ts';

/** What the fold needs to know about a stored object: the in-memory key index entry. */
export interface IndexEntry {
  rv: number;
  uid: string;
  /** metadata.deletionTimestamp is set (for namespaces: Terminating). */
  deleting: boolean;
}

export type RejectReason = 'AlreadyExists' | 'NotFound' | 'Conflict' | 'UidMismatch' | 'NamespaceNotFound' | 'NamespaceTerminating' | 'Malformed';

export type Verdict =
  | { accepted: true; rv: number; op: 'CREATE' | 'UPDATE' | 'DELETE'; object: Buffer; previousRv: number | null }
  | { accepted: false; rv: number; reason: RejectReason; currentRv: number | null };

/** Reads the namespace's index entry; injected so the fold itself stays pure. */
export type NamespaceLookup = (namespace: string) => IndexEntry | undefined;

const RV_PROBE = Buffer.from('"metadata":{');
const RV_PLACEHOLDER = Buffer.from('"resourceVersion":""');
const RV_PLACEHOLDER_VALUE = RV_PLACEHOLDER.length - 1; // offset of the closing quote

/**
 * Fill in metadata.resourceVersion. Writers serialize objects with `"resourceVersion":""` at its
 * Go position (after name, namespace, uid: string fields, so the placeholder's unescaped quotes
 * cannot occur before it inside a value); the first one after the object's own `"metadata":{`
 * is the object's. Events written before the placeholder existed get the field inserted first
 * in metadata, as they used to.
 */
export function stampResourceVersion(json: Buffer, rv: number): Buffer | null {
  // Encrypted at rest (encryption/stamp.ts): the version goes beside the ciphertext, in clear.
  if (isEncryptedObject(json)) return stampEncrypted(json, rv);
  const at = json.indexOf(RV_PROBE);
  if (at < 0) return null;
  const cut = at + RV_PROBE.length;
  const ph = json.indexOf(RV_PLACEHOLDER, cut);
  if (ph >= 0) {
    // One allocation and two copies (Buffer.concat of three parts cost a Buffer for the digits
    // and a list walk): every event of a replay or a replica's catch-up comes through here.
    const v = ph + RV_PLACEHOLDER_VALUE;
    const digits = String(rv);
    // Memory of its own: the stamped object lives on in the watch ring and the read cache (own-buffer.ts).
    const out = Buffer.allocUnsafeSlow(json.length + digits.length);
    json.copy(out, 0, 0, v);
    out.write(digits, v, 'latin1');
    json.copy(out, v + digits.length, v);
    return out;
  }
  const empty = json[cut] === 0x7d; // '}' → metadata was {}
  const insert = Buffer.from(`"resourceVersion":"${rv}"${empty ? '' : ','}`);
  return concatOwn([json.subarray(0, cut), insert, json.subarray(cut)]);
}

export function fold(offset: number, current: IndexEntry | undefined, event: FoldEvent, namespaceOf: NamespaceLookup): Verdict {
  const reject = (reason: RejectReason): Verdict => ({ accepted: false, rv: offset, reason, currentRv: current?.rv ?? null });
  if (event.op === 'GENESIS') return reject('Malformed');
  if (event.op === 'CREATE') {
    if (current) return reject('AlreadyExists');
    if (event.requireActiveNamespace) {
      const ns = namespaceOf(event.namespace);
      if (!ns) return reject('NamespaceNotFound');
      if (ns.deleting) return reject('NamespaceTerminating');
    }
  } else {
    if (!current) return reject('NotFound');
    if (event.expectUid && event.expectUid !== current.uid) return reject('UidMismatch');
    if (event.expectRv !== null && event.expectRv !== current.rv) return reject('Conflict');
  }
  if (!event.object) return reject('Malformed');
  const stamped = stampResourceVersion(event.object, offset);
  if (!stamped) return reject('Malformed');
  return { accepted: true, rv: offset, op: event.op, object: stamped, previousRv: current?.rv ?? null };
}
