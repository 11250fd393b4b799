/** Per-request facts the generic store needs (who, dry-run, field manager, request id). */
import type { UserInfo } from '../../api/types.ts';

export interface RequestContext {
  user: UserInfo;
  dryRun: boolean;
  /** fieldManager query parameter, or derived from the User-Agent. */
  fieldManager: string;
  userAgent?: string;
  requestId: string;
  /** The fieldValidation directive (effective only with the ServerSideFieldValidation gate). */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** `?force=true` on apply. */
  force?: boolean;
}

/** A context for the server's own controllers. */
export function systemContext(manager: string): RequestContext {
  return {
    user: { username: `system:${manager}`, groups: ['system:masters', 'system:authenticated'] },
    dryRun: false,
    fieldManager: manager,
    userAgent: manager,
    requestId: `${manager}-${Date.now().toString(36)}`,
  };
}
