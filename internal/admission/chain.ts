/**
 * Admission: mutating plugins run in the verb handler before the strategy; validating plugins run
 * after the strategy's prepare+validate, on the final object (kube-apiserver's order). Plugins
 * throw ApiError to reject. The dynamic admission webhooks (webhook/) are the last plugin of each
 * chain, as in kube-apiserver's plugin order.
 */
import type { Admission, AdmissionAttributes, ReinvocationContext } from '../registry/rest/admission.ts';

export type { Admission, AdmissionAttributes, AdmissionOperation, ReinvocationContext } from '../registry/rest/admission.ts';

export interface MutatingPlugin {
  readonly name: string;
  admit(a: AdmissionAttributes): Promise<void> | void;
}

export interface ValidatingPlugin {
  readonly name: string;
  validate(a: AdmissionAttributes): Promise<void> | void;
}

export class AdmissionChain implements Admission {
  constructor(readonly mutating: MutatingPlugin[] = [], readonly validating: ValidatingPlugin[] = []) {}

  /**
   * Runs the mutating plugins; when one of them asks for it (a webhook with reinvocationPolicy
   * IfNeeded saw the object change after it ran), runs them all once more (kube's reinvoker).
   * A plugin that does not apply answers synchronously (undefined): only what is a promise is
   * awaited, and when no plugin answered one the chain answers undefined itself (a caller awaits
   * only a promise: no microtask turn per request for a chain that did nothing asynchronous).
   * A plugin's synchronous throw leaves synchronously then; callers call it in an async
   * function, where that is the same rejection.
   */
  admit(a: AdmissionAttributes): Promise<void> | void {
    const r: ReinvocationContext = { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    a.reinvocation = r;
    const plugins = this.mutating;
    for (let i = 0; i < plugins.length; i++) {
      const done = plugins[i]!.admit(a);
      if (done) return this.admitFrom(a, r, i, done);
    }
    if (r.shouldReinvoke) return this.reinvoke(a, r);
  }

  /** admit from plugin `i`, whose answer `done` is a promise, on. */
  private async admitFrom(a: AdmissionAttributes, r: ReinvocationContext, i: number, done: Promise<void>): Promise<void> {
    await done;
    for (let j = i + 1; j < this.mutating.length; j++) {
      const next = this.mutating[j]!.admit(a);
      if (next) await next;
    }
    if (r.shouldReinvoke) await this.reinvoke(a, r);
  }

  private async reinvoke(a: AdmissionAttributes, r: ReinvocationContext): Promise<void> {
    r.isReinvoke = true;
    for (const p of this.mutating) {
      const done = p.admit(a);
      if (done) await done;
    }
  }

  validate(a: AdmissionAttributes): Promise<void> | void {
    const plugins = this.validating;
    for (let i = 0; i < plugins.length; i++) {
      const done = plugins[i]!.validate(a);
      if (done) return this.validateFrom(a, i, done);
    }
  }

  /** validate from plugin `i`, whose answer `done` is a promise, on. */
  private async validateFrom(a: AdmissionAttributes, i: number, done: Promise<void>): Promise<void> {
    await done;
    for (let j = i + 1; j < this.validating.length; j++) {
      const next = this.validating[j]!.validate(a);
      if (next) await next;
    }
  }
}
