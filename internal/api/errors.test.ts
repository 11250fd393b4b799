import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { genericServerResponse, unstructuredResponseText } from './errors.ts';

test('unstructuredResponseText: text answers are quoted (trimmed, 2 KiB at most), others are "unknown"', () => {
  assert.is(unstructuredResponseText(undefined, ' boom \n'), 'boom', 'no Content-Type counts as text');
  assert.is(unstructuredResponseText('', 'boom'), 'boom');
  assert.is(unstructuredResponseText('Text/Plain; charset=utf-8', 'boom'), 'boom');
  assert.is(unstructuredResponseText('text/html', '<p>x</p>'), '<p>x</p>');
  assert.is(unstructuredResponseText('application/json', '{"a":1}'), 'unknown');
  assert.is(unstructuredResponseText('text', 'boom'), 'unknown', 'a media type without a slash does not parse');
  assert.is(unstructuredResponseText('text/plain', 'x'.repeat(3000)).length, 2048);
});

test('genericServerResponse: apimachinery\'s reasons and messages by code', () => {
  assert.equal(genericServerResponse(409, 'POST', 'unknown'), { reason: 'AlreadyExists', message: 'the server reported a conflict' });
  assert.equal(genericServerResponse(409, 'PUT', 'unknown').reason, 'Conflict');
  assert.equal(genericServerResponse(403, 'POST', 'who did what'), { reason: 'Forbidden', message: 'who did what' });
  assert.is(genericServerResponse(405, 'POST', 'unknown').message, 'the server does not allow this method on the requested resource');
  assert.is(genericServerResponse(406, 'POST', 'unknown').message, 'the server was unable to respond with a content type that the client supports');
  assert.is(genericServerResponse(406, 'POST', 'only yaml').message, 'only yaml');
  assert.equal(genericServerResponse(422, 'POST', 'unknown'), { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
  assert.equal(genericServerResponse(503, 'POST', 'unknown').reason, 'ServiceUnavailable');
  assert.equal(genericServerResponse(504, 'POST', 'unknown').reason, 'Timeout');
  assert.equal(genericServerResponse(502, 'POST', 'bad gateway'), { reason: 'InternalError', message: 'an error on the server ("bad gateway") has prevented the request from succeeding' });
  assert.equal(genericServerResponse(418, 'POST', 'teapot'), { message: 'the server responded with the status code 418 but did not return more information' });
});

test.run();
