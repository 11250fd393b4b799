import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { filterKafkajsWarnings, isKafkajsNegativeTimeout } from './kafkajs.ts';

const require = createRequire(import.meta.url);
const nextWarnings = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

test("kafkajs' negative throttle timeout is dropped; other warnings still reach the listeners", async () => {
  const seen: Error[] = [];
  process.on('warning', (w) => seen.push(w)); // stands for Node's printer: installed before the filter
  filterKafkajsWarnings();
  filterKafkajsWarnings(); // idempotent: one filter, each warning delivered once
  const raw: Error[] = [];
  process.on('warning', (w) => raw.push(w)); // added after the filter: sees every warning

  // kafkajs' own request queue, idle (throttledUntil -1, nothing pending): the real warning.
  const RequestQueue = require('kafkajs/src/network/requestQueue');
  const logger = { debug() {}, info() {}, warn() {}, error() {}, namespace() { return logger; } };
  const q = new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 1000, enforceRequestTimeout: false, clientId: 't', broker: 'b:1', logger });
  q.scheduleCheckPendingRequests();
  clearTimeout(q.throttleCheckTimeoutId);

  // The same kind of warning raised elsewhere (Node itself warns once per process, and kafkajs
  // was first), and another kind: both kept.
  process.emitWarning(Object.assign(new Error('-5 is a negative number.'), { name: 'TimeoutNegativeWarning' }));
  process.emitWarning('something else', 'SomeWarning');
  await nextWarnings();

  const names = seen.map((w) => w.name);
  const negatives = seen.filter((w) => w.name === 'TimeoutNegativeWarning');
  assert.ok(names.includes('SomeWarning'), names.join());
  assert.is(seen.filter((w) => w.name === 'SomeWarning').length, 1, 'delivered once');
  assert.ok(negatives.every((w) => !isKafkajsNegativeTimeout(w)), 'no kafkajs negative-timeout warning got through');
  // Node >= 23 reports negative delays (the project runs Node 24): kafkajs did raise the warning.
  if (Number(process.versions.node.split('.')[0]) >= 23) {
    assert.ok(raw.some(isKafkajsNegativeTimeout), 'kafkajs raised TimeoutNegativeWarning');
    assert.is(negatives.length, 1, 'the one raised elsewhere still reported');
  }
});

test('isKafkajsNegativeTimeout looks at the name and at where the timeout was armed', () => {
  const w = (name: string, stack: string): Error => Object.assign(new Error('-1 is a negative number.'), { name, stack });
  assert.ok(isKafkajsNegativeTimeout(w('TimeoutNegativeWarning', 'at RequestQueue.scheduleCheckPendingRequests (/x/node_modules/kafkajs/src/network/requestQueue/index.js:317:38)')));
  assert.not.ok(isKafkajsNegativeTimeout(w('TimeoutNegativeWarning', 'at f (/x/internal/watch/hub.ts:1:1)')));
  assert.not.ok(isKafkajsNegativeTimeout(w('DeprecationWarning', 'at g (/x/node_modules/kafkajs/src/index.js:1:1)')));
});

test.run();
