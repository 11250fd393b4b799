import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Socket } from 'node:net';
import { answerClientError, MAX_HEADER_BYTES } from './header-limits.ts';

/** A socket stand-in recording what is written (only `end` and `writable` are used). */
function fakeSocket(): { s: Socket; out: string[] } {
  const out: string[] = [];
  const s = { writable: true, end: (t: string) => out.push(t), destroy: () => out.push('<destroyed>') } as unknown as Socket;
  return { s, out };
}

test("Go's limit and answers", () => {
  assert.is(MAX_HEADER_BYTES, 1_052_672);
  const a = fakeSocket();
  answerClientError(Object.assign(new Error('x'), { code: 'HPE_HEADER_OVERFLOW' }), a.s);
  assert.equal(a.out, ['HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large']);
  const b = fakeSocket();
  answerClientError(Object.assign(new Error('x'), { code: 'HPE_INVALID_METHOD' }), b.s);
  assert.ok(b.out[0]!.startsWith('HTTP/1.1 400 Bad Request\r\n'));
});

test.run();
