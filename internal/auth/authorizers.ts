/**
 * `--authorization-mode` (kube-apiserver's names and order semantics): the privileged group
 * (system:masters) is always asked first, then each mode in order; the first to allow or deny
 * decides, and "no opinion" from all is a 403. Modes: AlwaysAllow, AlwaysDeny, Node (kubelet
 * identities, node-authorizer.ts), RBAC; this server's default is kubeadm's `Node,RBAC`. kube's ABAC
 * and Webhook modes are refused: there are no ABAC policy files or authorization webhooks here.
 */
import type { UserInfo } from '../api/types.ts';
import type { AuthorizationAttributes, Authorizer, Decision, RuleSet } from './authz.ts';
import { aggregate } from './rbac/authorizer.ts';

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'Node' | 'RBAC';
const MODES: AuthorizationMode[] = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC'];
const KUBE_ONLY = ['ABAC', 'Webhook'];
/** kubeadm's kube-apiserver flags (kube's own default, AlwaysAllow, is no default for a cluster). */
export const DEFAULT_AUTHORIZATION_MODES: AuthorizationMode[] = ['Node', 'RBAC'];

/** Parse a `--authorization-mode` value; throws with kube's messages. */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  const modes = value.split(',').map((m) => m.trim()).filter((m) => m);
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  for (const m of modes) {
    if (KUBE_ONLY.includes(m)) throw new Error(`authorization-mode ${JSON.stringify(m)} is not supported by this server (supported: ${MODES.join(', ')})`);
    if (!MODES.includes(m as AuthorizationMode)) throw new Error(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
    if (seen.has(m)) throw new Error(`authorization-mode ${JSON.stringify(m)} has mode specified more than once`);
    seen.add(m);
  }
  return modes as AuthorizationMode[];
}

const EVERYTHING: RuleSet = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false };

/** authorizerfactory.NewPrivilegedGroups(system:masters): allow, no rules of its own. */
export const privilegedGroupAuthorizer: Authorizer = {
  authorize: (a) => ({ allowed: a.user.groups.includes('system:masters'), reason: '' }),
};

export const alwaysAllowAuthorizer: Authorizer = {
  authorize: () => ({ allowed: true, reason: '' }),
  rulesFor: () => structuredClone(EVERYTHING),
};

export const alwaysDenyAuthorizer: Authorizer = {
  authorize: () => ({ allowed: false, denied: true, reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** union.New: first allow or deny wins; reasons of the undecided are joined. Rules concatenate. */
export function unionAuthorizer(list: Authorizer[]): Authorizer {
  const undecided = (reasons: string[], errors: string[]): Decision => ({ allowed: false, reason: reasons.join('\n'), ...(errors.length ? { evaluationError: aggregate(errors) } : {}) });
  /** The union's answer from authorizer `i`, whose answer `pending` is a promise, on. */
  const rest = async (a: AuthorizationAttributes, i: number, pending: Promise<Decision>, reasons: string[], errors: string[]): Promise<Decision> => {
    for (let j = i; j < list.length; j++) {
      const d = j === i ? await pending : await list[j]!.authorize(a);
      if (d.allowed || d.denied) return d;
      if (d.reason) reasons.push(d.reason);
      if (d.evaluationError) errors.push(d.evaluationError);
    }
    return undecided(reasons, errors);
  };
  return {
    // Synchronous while every authorizer asked answers synchronously (the privileged group and
    // RBAC do): no promise and no microtask turn per request; from the first promise on, async.
    authorize(a: AuthorizationAttributes): Promise<Decision> | Decision {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (let i = 0; i < list.length; i++) {
        const d = list[i]!.authorize(a);
        if (d instanceof Promise) return rest(a, i, d, reasons, errors);
        if (d.allowed || d.denied) return d;
        if (d.reason) reasons.push(d.reason);
        if (d.evaluationError) errors.push(d.evaluationError);
      }
      return undecided(reasons, errors);
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<RuleSet> {
      const out: RuleSet = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const z of list) {
        if (!z.rulesFor) continue;
        const r = await z.rulesFor(user, namespace);
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        out.incomplete ||= r.incomplete;
        if (r.evaluationError) errors.push(r.evaluationError);
      }
      if (errors.length) out.evaluationError = aggregate(errors);
      return out;
    },
  };
}
