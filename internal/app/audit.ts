/** Start-up step: the audit log and its policy (a bad policy file is a start-up error). */
import { readFileSync } from 'node:fs';
import { Auditor, type AuditSink } from '../audit/auditor.ts';
import { AuditLogWriter } from '../audit/log-writer.ts';
import { parsePolicy } from '../audit/policy.ts';
import type { ServerOptions } from './options.ts';

/** The audit log and policy, when both flags are given (kube audits nothing without a policy). */
export function openAuditor(opts: ServerOptions, sink?: AuditSink): Auditor | undefined {
  if (!opts.auditLogPath || !opts.auditPolicyFile) return undefined;
  let policy;
  try {
    policy = parsePolicy(readFileSync(opts.auditPolicyFile, 'utf8'));
  } catch (err) {
    throw new Error(`loading audit policy file: ${(err as Error).message}`);
  }
  if (sink) return new Auditor(policy, sink); // a serving thread: its leader writes the file
  const writer = AuditLogWriter.open(opts.auditLogPath, { maxAgeDays: opts.auditLogMaxAge, maxBackups: opts.auditLogMaxBackup, maxSizeMB: opts.auditLogMaxSize });
  return new Auditor(policy, writer);
}
