/**
 * Go's %#v of the few internal core structs kube's Pod validation echoes as an error's value
 * (field.Invalid on a *Lifecycle, *Probe, *SecurityContext, *SeccompProfile: the pointer is
 * dereferenced, pointer fields print as `(*T)(nil)` or `(*T)(0x…)`). Go prints real addresses,
 * different on every run; here every non-nil pointer prints as 0xc000000000, so only the address
 * text differs from kube's.
 *
 * Example: core.SeccompProfile{Type:"Bogus", LocalhostProfile:(*string)(0xc000000000)}
 */
import { GoValue } from '../../api/field-errors.ts';
import { type J, obj } from './pod-util.ts';
import { goQuote } from '../../gocompat/quote.ts';

const ADDRESS = '0xc000000000';

/** `(*T)(nil)` or `(*T)(0x…)` for a pointer field. */
const ptr = (type: string, v: unknown): string => `(*${type})(${v === undefined || v === null ? 'nil' : ADDRESS})`;
const int = (v: unknown): string => String(typeof v === 'number' ? v : 0);

/** core.Lifecycle. */
export const goLifecycle = (l: J): GoValue =>
  new GoValue(`core.Lifecycle{PostStart:${ptr('core.LifecycleHandler', l.postStart)}, PreStop:${ptr('core.LifecycleHandler', l.preStop)}}`);

/** core.Probe (ProbeHandler inline). */
export const goProbe = (p: J): GoValue =>
  new GoValue(
    `core.Probe{ProbeHandler:core.ProbeHandler{Exec:${ptr('core.ExecAction', p.exec)}, HTTPGet:${ptr('core.HTTPGetAction', p.httpGet)}, TCPSocket:${ptr('core.TCPSocketAction', p.tcpSocket)}, GRPC:${ptr('core.GRPCAction', p.grpc)}}, ` +
      `InitialDelaySeconds:${int(p.initialDelaySeconds)}, TimeoutSeconds:${int(p.timeoutSeconds)}, PeriodSeconds:${int(p.periodSeconds)}, SuccessThreshold:${int(p.successThreshold)}, FailureThreshold:${int(p.failureThreshold)}, TerminationGracePeriodSeconds:${ptr('int64', p.terminationGracePeriodSeconds)}}`,
  );

/** core.SecurityContext. */
export const goSecurityContext = (s: J): GoValue =>
  new GoValue(
    `core.SecurityContext{Capabilities:${ptr('core.Capabilities', obj(s.capabilities))}, Privileged:${ptr('bool', s.privileged)}, SELinuxOptions:${ptr('core.SELinuxOptions', obj(s.seLinuxOptions))}, ` +
      `WindowsOptions:${ptr('core.WindowsSecurityContextOptions', obj(s.windowsOptions))}, RunAsUser:${ptr('int64', s.runAsUser)}, RunAsGroup:${ptr('int64', s.runAsGroup)}, RunAsNonRoot:${ptr('bool', s.runAsNonRoot)}, ` +
      `ReadOnlyRootFilesystem:${ptr('bool', s.readOnlyRootFilesystem)}, AllowPrivilegeEscalation:${ptr('bool', s.allowPrivilegeEscalation)}, ProcMount:${ptr('core.ProcMountType', s.procMount)}, SeccompProfile:${ptr('core.SeccompProfile', obj(s.seccompProfile))}}`,
  );

/** core.SeccompProfile. */
export const goSeccompProfile = (p: J): GoValue => new GoValue(`core.SeccompProfile{Type:${goQuote(typeof p.type === 'string' ? p.type : '')}, LocalhostProfile:${ptr('string', p.localhostProfile)}}`);
