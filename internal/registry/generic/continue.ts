/**
 * Continue tokens of paginated lists, as kube-apiserver's (apiserver/pkg/storage continue.go):
 * JSON `{"v":"meta.k8s.io/v1","rv":…,"start":…,"n":…}`, base64url without padding — kube's shape
 * plus `n`. `start` is a continue position from the storage (CollectionRead.position).
 */
import { badRequest } from '../../api/errors.ts';
import { goSyntaxError } from '../../decode/json-parse.ts';

const TOKEN_VERSION = 'meta.k8s.io/v1';

/**
 * What a continue token carries. JSON `{"v":"meta.k8s.io/v1","rv":…,"start":…,"n":…}`, base64url
 * without padding — kube's shape plus `n`.
 */
export interface ContinueToken {
  /** Version every later page is served at; -1: the next page is served at the latest version. */
  rv: number;
  /** Path of the last item returned, relative to the list's prefix: the next page starts after it. */
  start: string;
  /**
   * Objects after `start` at `rv` (set on unfiltered pages): the next page's remainingItemCount
   * is this minus its own items, so later pages never count the rest of the collection.
   */
  remaining?: number;
}

/** Encode a continue token (opaque to clients; decodeContinue reads it back). */
export function encodeContinue(t: ContinueToken): string {
  const body: Record<string, unknown> = { v: TOKEN_VERSION, rv: t.rv, start: t.start };
  if (t.remaining !== undefined) body.n = t.remaining;
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** Decode a continue token; 400 "invalid continue token: …" with kube's reasons when it is not one. */
export function decodeContinue(text: string): ContinueToken {
  const fail = (why: string): never => {
    throw badRequest(`invalid continue token: continue key is not valid: ${why}`);
  };
  const bad = /[^A-Za-z0-9_-]/.exec(text);
  if (bad) fail(`illegal base64 data at input byte ${bad.index}`);
  if (text.length % 4 === 1) fail(`illegal base64 data at input byte ${text.length - 1}`);
  let j: unknown;
  try {
    j = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    // kube unmarshals the token with encoding/json: report its syntax error text.
    fail(goSyntaxError(Buffer.from(text, 'base64url').toString('utf8')));
  }
  if (!j || typeof j !== 'object' || Array.isArray(j)) return fail('the token is not a JSON object');
  const t = j as Record<string, unknown>;
  if (t.v !== TOKEN_VERSION) fail(`server does not recognize this encoded version ${JSON.stringify(t.v ?? '')}`);
  if (typeof t.rv !== 'number' || !Number.isSafeInteger(t.rv) || t.rv === 0) fail(`incorrect encoded start resourceVersion (version ${TOKEN_VERSION})`);
  if (typeof t.start !== 'string' || t.start === '') fail(`encoded start key empty (version ${TOKEN_VERSION})`);
  const start = t.start as string;
  // Keys are compared as strings and the scan is bounded by the list's prefix, so a token cannot
  // reach other collections; reject dot segments anyway, as kube does (path.Clean).
  if (start.split('/').some((s) => s === '.' || s === '..')) fail(start);
  const out: ContinueToken = { rv: (t.rv as number) < 0 ? -1 : (t.rv as number), start };
  if (typeof t.n === 'number' && Number.isSafeInteger(t.n) && t.n >= 0) out.remaining = t.n;
  return out;
}

