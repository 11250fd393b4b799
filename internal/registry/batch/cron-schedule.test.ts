import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cronScheduleError, loadLocationError } from './cron-schedule.ts';

test('valid schedules: numbers, names, ranges, steps, lists, ?, descriptors, a TZ prefix', () => {
  for (const s of ['* * * * *', '*/5 * * * *', '0 9-17/2 * JAN-mar MON,fri', '? * * * ?', '0 0 1,15 * *', '5 * * * 0-6', '59 23 31 12 6', '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly', '@every 1h30m', 'TZ=UTC 0 * * * *', 'CRON_TZ=Europe/Paris 0 6 * * *', '1-5/2,10 * * * *', '  0   0  * * *  ']) {
    assert.is(cronScheduleError(s), undefined, s);
  }
});

test("invalid schedules: robfig/cron's messages", () => {
  const cases: [string, string][] = [
    ['', 'empty spec string'],
    ['* * *', 'expected exactly 5 fields, found 3: [* * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * 13 *', 'end of range (13) above maximum (12): 13'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
    ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['jan * * * *', 'failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax'],
    ['99999999999999999999 * * * *', 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range'],
    ['@every 1x', 'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'],
    ['@every', 'unrecognized descriptor: @every'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['TZ=Nowhere/Land * * * * *', 'provided bad location Nowhere/Land: unknown time zone Nowhere/Land'],
  ];
  for (const [s, msg] of cases) assert.is(cronScheduleError(s), msg, s);
});

test('time zones as time.LoadLocation: IANA names, case-sensitive; UTC, Local and "" load', () => {
  for (const z of ['', 'UTC', 'Local', 'America/New_York', 'Europe/Paris', 'Etc/GMT+5']) assert.is(loadLocationError(z), undefined, z);
  assert.is(loadLocationError('america/new_york'), 'unknown time zone america/new_york');
  assert.is(loadLocationError('Mars/Olympus'), 'unknown time zone Mars/Olympus');
  assert.is(loadLocationError('../etc/passwd'), 'time: invalid location name');
});

test.run();
