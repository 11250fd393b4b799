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
  /** The API version the request addressed (admission webhooks are told it). */
  apiVersion?: string;
  /** The fieldManager query parameter as given (admission webhooks see the request's options). */
  fieldManagerParam?: string;
  /** Warnings admission adds (webhooks): sent as `Warning` headers, also on failure. */
  warnings?: string[];
  /** Adds an annotation to the request's audit event. */
  annotate?(key: string, value: string): void;
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
