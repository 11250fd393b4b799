/** Shared assertions of the integration suites: every error is a Status with code and reason. */
import * as assert from 'uvu/assert';
import type { HttpResult } from './harness.ts';

export const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 500)}`;

/** The texts of the response's `Warning: 299 - "…"` headers. */
export function warnings(r: HttpResult): string[] {
  const h = r.headers.warning;
  const all = h === undefined ? [] : Array.isArray(h) ? h : [h];
  return all.map((w) => {
    const m = /^299 - "(.*)"$/s.exec(w);
    return m ? m[1]!.replace(/\\(.)/g, '$1') : w;
  });
}

export function expectStatus(r: HttpResult, code: number, reason: string, label: string): void {
  assert.is(r.status, code, `${label}: HTTP status; ${show(r)}`);
  assert.ok(r.json && typeof r.json === 'object', `${label}: body must be a JSON Status; ${show(r)}`);
  assert.is(r.json.kind, 'Status', `${label}: kind; ${show(r)}`);
  assert.is(r.json.status, 'Failure', `${label}: status; ${show(r)}`);
  assert.is(r.json.code, code, `${label}: Status.code; ${show(r)}`);
  assert.is(r.json.reason, reason, `${label}: reason; ${show(r)}`);
}

/** 422 Invalid whose causes name exactly `fields` (order-insensitive). */
export function expectInvalid(r: HttpResult, fields: string[], label: string): void {
  expectStatus(r, 422, 'Invalid', label);
  const got = ((r.json.details?.causes ?? []) as { field: string }[]).map((x) => x.field).sort();
  assert.equal(got, [...fields].sort(), `${label}: cause fields; ${show(r)}`);
}

/** Await a request, assert its HTTP code, return the parsed body. */
export async function ok(p: Promise<HttpResult>, code: number, label: string): Promise<any> {
  const r = await p;
  assert.is(r.status, code, `${label}: ${show(r)}`);
  return r.json;
}
