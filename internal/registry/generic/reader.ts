/**
 * The read side of the generic store: get and list with the seed's resourceVersion semantics.
 *
 * Two ways to read a collection:
 *   latest  — a LevelDB snapshot of the o/ keys plus the m/folded stored with them (exact rv);
 *   at rv X — a scan of the h/ keys, taking per object the newest version ≤ X (MVCC history).
 * Both iterate in the same key order, so a paginated list may start on o/ and continue on h/.
 * Items are never parsed unless a selector needs them; bytes go out as stored.
 */
import type { KubeObject } from '../../api/types.ts';
import { badRequest, expired, timeout } from '../../api/errors.ts';
import type { KindDescriptor } from '../rest/strategy.ts';
import type { Storage } from '../../storage/storage.ts';
import { currentPrefix, historyScanPrefix, fromHex16 } from '../../storage/keys.ts';
import { parseLabelSelector, type LabelSelector } from '../../selectors/label-selector.ts';
import { parseFieldSelector, validateFieldSelector, type FieldSelector } from '../../selectors/field-selector.ts';
import { notFound } from '../../api/errors.ts';
import { storageFailure } from './errors.ts';
import { parseObject } from './serialize.ts';

/** How long "not older than X" waits for the fold to reach X before 504 (kube-apiserver: 3 s). */
export const RESOURCE_VERSION_WAIT_MS = 3000;

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  /** Version the list was served at (ListMeta.resourceVersion). */
  rv: number;
  items: Buffer[];
  continue?: string;
  remainingItemCount?: number;
}

interface ContinueToken {
  rv: number;
  /** Object path of the last item returned: the next page starts after it. */
  start: string;
}

type Mode = { kind: 'latest' } | { kind: 'notOlderThan'; rv: number } | { kind: 'exact'; rv: number; start?: string };

export function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start })).toString('base64url');
}

export function decodeContinue(text: string): ContinueToken {
  try {
    const j = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (j.v !== 'meta.k8s.io/v1' || !Number.isSafeInteger(j.rv) || j.rv < 0 || typeof j.start !== 'string') throw new Error('bad');
    return { rv: j.rv, start: j.start };
  } catch {
    throw badRequest('The provided continue parameter is invalid. Please restart your list without the continue parameter.', [
      { reason: 'FieldValueInvalid', message: 'Invalid value: continue token is malformed', field: 'continue' },
    ]);
  }
}

/** Parse a resourceVersion query value: a non-negative decimal integer. */
export function parseRv(text: string, field = 'resourceVersion'): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw badRequest(`Invalid value: "${text}": ${field} must be a non-negative integer`, [{ reason: 'FieldValueInvalid', message: `Invalid value: "${text}"`, field }]);
  }
  return Number(text);
}

export class GenericReader {
  constructor(readonly kind: KindDescriptor, private readonly storage: Storage) {}

  private get gr() {
    return { group: this.kind.group, resource: this.kind.resource };
  }

  /** Field-selector fields of an object: metadata.name, metadata.namespace, plus the kind's own. */
  fieldsOf(obj: KubeObject): Record<string, string> {
    const f: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
    if (this.kind.namespaced) f['metadata.namespace'] = obj.metadata.namespace ?? '';
    for (const [k, fn] of Object.entries(this.kind.fieldSelectors ?? {})) f[k] = fn(obj);
    return f;
  }

  selectors(q: { labelSelector?: string; fieldSelector?: string }): { label: LabelSelector | null; field: FieldSelector | null } {
    const label = q.labelSelector ? parseLabelSelector(q.labelSelector) : null;
    const field = q.fieldSelector ? parseFieldSelector(q.fieldSelector) : null;
    if (field) {
      const allowed = ['metadata.name', ...(this.kind.namespaced ? ['metadata.namespace'] : []), ...Object.keys(this.kind.fieldSelectors ?? {})];
      validateFieldSelector(field, allowed, this.kind.kind);
    }
    return { label: label && !label.empty() ? label : null, field: field && !field.empty() ? field : null };
  }

  /** GET one object. `resourceVersion`: unset/0 → latest; N → not older than N. */
  async get(namespace: string, name: string, resourceVersion?: string): Promise<Buffer> {
    if (resourceVersion && resourceVersion !== '0') await this.waitFor(parseRv(resourceVersion));
    const key = { group: this.kind.group, resource: this.kind.resource, namespace: this.kind.namespaced ? namespace : '', name };
    const b = await this.storage.get(key).catch((e) => {
      throw storageFailure(e);
    });
    if (!b) throw notFound(this.gr, name);
    return b;
  }

  /** Wait until the fold has reached `rv`, or answer 504 "Too large resource version". */
  async waitFor(rv: number): Promise<void> {
    if (this.storage.folded >= rv) return;
    const ok = await this.storage.materializer.waitFolded(rv, RESOURCE_VERSION_WAIT_MS);
    if (!ok) {
      const e = timeout(`Too large resource version: ${rv}, current: ${this.storage.folded}`, 1);
      e.status.details = { ...e.status.details, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] };
      throw e;
    }
  }

  /** Decide how to serve a list from its query (the seed's list semantics table). */
  private mode(q: ListQuery): Mode {
    const match = q.resourceVersionMatch;
    const rvText = q.resourceVersion;
    if (match !== undefined && match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
      throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
    }
    if (q.continue) {
      if (rvText && rvText !== '0') throw badRequest('specifying resource version is not allowed when using continue');
      if (match) throw badRequest('resourceVersionMatch is forbidden when continue is provided');
      const t = decodeContinue(q.continue);
      return { kind: 'exact', rv: t.rv, start: t.start };
    }
    if (match && !rvText) throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (match === 'Exact') {
      const rv = parseRv(rvText!);
      if (rv === 0) throw badRequest('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
      return { kind: 'exact', rv };
    }
    if (!rvText) return { kind: 'latest' };
    const rv = parseRv(rvText);
    if (rv === 0) return { kind: 'latest' };
    if (match === 'NotOlderThan' || !q.limit) return { kind: 'notOlderThan', rv };
    return { kind: 'exact', rv }; // limit without continue and no match: exact (seed table)
  }

  /** LIST a collection (namespace '' on a namespaced kind = all namespaces). */
  async list(namespace: string, q: ListQuery): Promise<ListResult> {
    const { label, field } = this.selectors(q);
    const limit = q.limit && q.limit > 0 ? q.limit : Infinity;
    const mode = this.mode(q);
    const ns = this.kind.namespaced && namespace ? namespace : undefined;
    const match = (b: Buffer): boolean => {
      if (!label && !field) return true;
      const obj = parseObject(b);
      return (!label || label.matches(obj.metadata.labels)) && (!field || field.matches(this.fieldsOf(obj)));
    };
    if (mode.kind === 'notOlderThan') await this.waitFor(mode.rv);
    try {
      if (mode.kind === 'exact') return await this.listAt(mode.rv, ns, mode.start, limit, match, Boolean(label || field));
      return await this.listLatest(ns, limit, match, Boolean(label || field));
    } catch (e) {
      throw storageFailure(e);
    }
  }

  private async listLatest(ns: string | undefined, limit: number, match: (b: Buffer) => boolean, filtered: boolean): Promise<ListResult> {
    const view = await this.storage.view();
    try {
      const prefix = currentPrefix(this.kind.group, this.kind.resource, ns);
      const items: Buffer[] = [];
      let last = '';
      let more = false;
      let remaining = 0;
      for await (const [k, v] of view.scan(prefix, prefixEnd(prefix))) {
        if (items.length >= limit) {
          if (!filtered) {
            remaining++;
            more = true;
          } else if (match(v)) {
            more = true;
            break;
          }
          continue;
        }
        if (!match(v)) continue;
        items.push(v);
        last = k.slice(2, -1);
      }
      const r: ListResult = { rv: view.rv, items };
      if (more) {
        r.continue = encodeContinue({ rv: view.rv, start: last });
        if (!filtered) r.remainingItemCount = remaining;
      }
      return r;
    } finally {
      await view.close();
    }
  }

  /** A list at exactly `rv`, through history; 410 when rv has been compacted away. */
  private async listAt(rv: number, ns: string | undefined, start: string | undefined, limit: number, match: (b: Buffer) => boolean, filtered: boolean): Promise<ListResult> {
    if (rv < this.storage.compactedBelow) {
      throw expired(start !== undefined
        ? 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.'
        : `too old resource version: ${rv} (${this.storage.compactedBelow})`);
    }
    await this.waitFor(rv);
    const prefix = historyScanPrefix(this.kind.group, this.kind.resource, ns);
    const from = start !== undefined ? `h/${start}/g` : prefix;
    const items: Buffer[] = [];
    let last = '';
    let more = false;
    let remaining = 0;
    let group = '';
    let best: Buffer | null = null;
    const settle = (): boolean => {
      // Returns true when the scan can stop.
      if (best && best.length) {
        if (items.length >= limit) {
          if (!filtered) {
            remaining++;
            more = true;
          } else if (match(best)) {
            more = true;
            return true;
          }
        } else if (match(best)) {
          items.push(best);
          last = group;
        }
      }
      best = null;
      return false;
    };
    for await (const [k, v] of this.storage.db.iterator({ gte: from, lt: prefixEnd(prefix) })) {
      const g = k.slice(2, -17);
      if (g !== group) {
        if (settle()) {
          group = '';
          break;
        }
        group = g;
      }
      if (fromHex16(k.slice(-16)) <= rv) best = v;
    }
    if (group) settle();
    const r: ListResult = { rv, items };
    if (more) {
      r.continue = encodeContinue({ rv, start: last });
      if (!filtered) r.remainingItemCount = remaining;
    }
    return r;
  }
}

/** The smallest key after every key that starts with `prefix` (prefix ends with '/'). */
const prefixEnd = (prefix: string): string => prefix.slice(0, -1) + '0';
