/** Shared helper of the strategy unit tests: compare FieldErrors by type, field and message. */
import * as assert from 'uvu/assert';
import { type FieldError, fieldErrorMessage } from '../../api/field-errors.ts';
import type { KubeObject } from '../../api/types.ts';

/** One table row of a strategy's update-validation tests. */
export interface UpdateCase {
  name: string;
  old: KubeObject;
  new: KubeObject;
  want: Want[];
}

export interface Want {
  type: FieldError['type'];
  field: string;
  msg?: string;
}

export const check = (label: string, got: FieldError[], want: Want[]): void => {
  const shown = JSON.stringify(got.map(fieldErrorMessage));
  assert.is(got.length, want.length, `${label}: want ${want.length} errors, got ${shown}`);
  want.forEach((w, j) => {
    assert.is(got[j]!.type, w.type, `${label} error ${j}: type; got ${shown}`);
    assert.is(got[j]!.field, w.field, `${label} error ${j}: field; got ${shown}`);
    if (w.msg) assert.ok(fieldErrorMessage(got[j]!).includes(w.msg), `${label} error ${j}: ${shown} lacks ${JSON.stringify(w.msg)}`);
  });
};
