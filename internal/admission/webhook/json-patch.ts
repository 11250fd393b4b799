/**
 * A webhook's JSONPatch applied as kube applies it (github.com/evanphx/json-patch v4.12, the
 * library kube-apiserver 1.24 uses for webhook patches): operation by operation, failing with that
 * library's messages, which kube answers as `Internal error occurred: <message>`.
 */
import jsonpatch from 'fast-json-patch';

type Json = Record<string, unknown> | unknown[];

/** RFC 6901 pointer → unescaped tokens. */
const tokens = (pointer: string): string[] => pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The container a pointer's last token lives in, or undefined when a step is missing. */
function parentOf(doc: unknown, pointer: string): Json | undefined {
  let cur: unknown = doc;
  for (const t of tokens(pointer).slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (cur && typeof cur === 'object') cur = (cur as Record<string, unknown>)[t];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur && typeof cur === 'object' ? (cur as Json) : undefined;
}

const has = (container: Json, key: string): boolean => (Array.isArray(container) ? Number(key) >= 0 && Number(key) < container.length : Object.hasOwn(container, key));

/** evanphx's message for an operation that cannot apply to `doc`, or undefined when it would. */
function whyNot(doc: unknown, op: Record<string, any>): string | undefined {
  const path = String(op.path ?? '');
  const key = tokens(path).at(-1) ?? '';
  const parent = path === '' ? undefined : parentOf(doc, path);
  switch (op.op) {
    case 'add':
      return path !== '' && !parent ? `add operation does not apply: doc is missing path: "${path}": missing value` : undefined;
    case 'remove':
      if (!parent) return `remove operation does not apply: doc is missing path: "${path}": missing value`;
      return has(parent, key) ? undefined : Array.isArray(parent) ? `Unable to access invalid index: ${key}: invalid index referenced` : `Unable to remove nonexistent key: ${key}: missing value`;
    case 'replace':
      if (path === '') return undefined;
      if (!parent) return `replace operation does not apply: doc is missing path: ${path}: missing value`;
      return has(parent, key) ? undefined : `replace operation does not apply: doc is missing key: ${path}: missing value`;
    case 'move':
    case 'copy': {
      const from = String(op.from ?? '');
      const fp = parentOf(doc, from);
      if (!fp || !has(fp, tokens(from).at(-1) ?? '')) return `${op.op} operation does not apply: doc is missing from path: ${from}: missing value`;
      return parentOf(doc, path) || path === '' ? undefined : `${op.op} operation does not apply: doc is missing destination path: ${path}: missing value`;
    }
    case 'test':
      return undefined;
    default:
      return `Unexpected kind: ${String(op.op)}`;
  }
}

/** Apply `ops` to a copy of `doc`; throws an Error with evanphx's message when one cannot apply. */
export function applyWebhookPatch(doc: unknown, ops: unknown[]): unknown {
  let cur = structuredClone(doc);
  for (const raw of ops) {
    const op = (raw ?? {}) as Record<string, any>;
    const why = whyNot(cur, op);
    if (why) throw new Error(why);
    try {
      cur = jsonpatch.applyOperation(cur, op as jsonpatch.Operation, true, true).newDocument;
    } catch (e) {
      if ((e as { name?: string }).name === 'TEST_OPERATION_FAILED') throw new Error(`testing value ${String(op.path)} failed: test failed`);
      throw new Error((e as Error).message.split('\n')[0]);
    }
  }
  return cur;
}
