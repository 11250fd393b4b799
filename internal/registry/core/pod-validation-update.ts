/**
 * Pod update validation, ported from k8s.io/kubernetes 1.24 pkg/apis/core/validation:
 * ValidatePodUpdate (only images, activeDeadlineSeconds, added tolerations and a negative grace
 * period set to 1 may change), ValidatePodStatusUpdate and ValidatePodEphemeralContainersUpdate.
 *
 * kube appends a go-cmp diff of the internal PodSpec (or EphemeralContainer) to its "may not
 * change" messages: cmpdiff.ts writes it (on the go-cmp port, gocompat/cmp.ts).
 */
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, internalError, invalid, required } from '../../api/field-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { isDNS1123Subdomain, isQualifiedName } from '../../validation/names.ts';
import { parseIP } from '../../validation/network.ts';
import type { PodValidationOptions } from './pod-validation-containers.ts';
import { type VolumesValidator, validatePodAnnotationUpdates, validatePodMetadataAndSpec, validateTolerations } from './pod-validation.ts';
import { type J, list, obj, s, withoutServiceAccountAlias } from './pod-util.ts';
import { cmpDiff } from './cmpdiff.ts';
import { jsonEqual } from '../../gocompat/equal.ts';

const specPath = new FieldPath('spec');
const metaAnnotations = new FieldPath('metadata').child('annotations');

/** ValidateContainerUpdates: same count, images required and trimmed. Returns [errors, stop]. */
function validateContainerUpdates(next: J[], old: J[], p: FieldPath): [FieldError[], boolean] {
  if (next.length !== old.length) return [[forbidden(p, 'pod updates may not add or remove containers')], true];
  const errs: FieldError[] = [];
  next.forEach((c, i) => {
    const image = s(c.image);
    if (!image) errs.push(required(p.index(i).child('image')));
    if (image.trim().length !== image.length) errs.push(invalid(p.index(i).child('image'), image, 'must not have leading or trailing whitespace'));
  });
  return [errs, false];
}

/** validateOnlyAddedTolerations. */
function validateOnlyAddedTolerations(next: J[], old: J[], p: FieldPath): FieldError[] {
  for (const o of old) {
    const found = next.some((t) => jsonEqual({ ...o, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [forbidden(p, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, p);
}

/** ValidatePodUpdate (ObjectMeta update rules aside: the generic store runs them). */
export function validatePodUpdate(pod: KubeObject, old: KubeObject, opts: PodValidationOptions, volumes: VolumesValidator): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod, opts, volumes);
  // kube compares the internal specs: the deprecated serviceAccount is not one of their fields.
  const spec = withoutServiceAccountAlias(obj(pod.spec) ?? {});
  const oldSpec = withoutServiceAccountAlias(obj(old.spec) ?? {});
  errs.push(...validatePodAnnotationUpdates(obj(pod.metadata.annotations) ?? {}, obj(old.metadata.annotations) ?? {}, spec, metaAnnotations, opts));
  for (const f of ['containers', 'initContainers']) {
    const [e, stop] = validateContainerUpdates(list(spec[f]), list(oldSpec[f]), specPath.child(f));
    errs.push(...e);
    if (stop) return errs;
  }
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === 'number') {
    if (ads < 0 || ads > 2147483647) return [...errs, invalid(specPath.child('activeDeadlineSeconds'), ads, 'must be between 0 and 2147483647, inclusive')];
    if (typeof oldSpec.activeDeadlineSeconds === 'number' && oldSpec.activeDeadlineSeconds < ads) {
      return [...errs, invalid(specPath.child('activeDeadlineSeconds'), ads, 'must be less than or equal to previous value')];
    }
  } else if (typeof oldSpec.activeDeadlineSeconds === 'number') {
    // Go prints the nil *int64 as "null" (quoted: the value is formatted as a string).
    errs.push(invalid(specPath.child('activeDeadlineSeconds'), 'null', 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(list(spec.tolerations), list(oldSpec.tolerations), specPath.child('tolerations')));
  if (jsonEqual(spec, oldSpec)) return errs;
  // Munge the allowed changes back to the old values; anything left is forbidden.
  const munged: J = structuredClone(spec);
  for (const f of ['containers', 'initContainers']) {
    if (Array.isArray(munged[f])) munged[f] = (munged[f] as J[]).map((c, i) => ({ ...c, image: list(oldSpec[f])[i]?.image }));
  }
  if (oldSpec.activeDeadlineSeconds === undefined) delete munged.activeDeadlineSeconds;
  else munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  if (oldSpec.tolerations === undefined) delete munged.tolerations;
  else munged.tolerations = oldSpec.tolerations;
  if (typeof oldSpec.terminationGracePeriodSeconds === 'number' && oldSpec.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  }
  if (!jsonEqual(munged, oldSpec)) {
    errs.push(
      forbidden(
        specPath,
        `pod updates may not change fields other than \`spec.containers[*].image\`, \`spec.initContainers[*].image\`, \`spec.activeDeadlineSeconds\`, \`spec.tolerations\` (only additions to existing tolerations) or \`spec.terminationGracePeriodSeconds\` (allow it to be set to 1 if it was previously negative)\n${cmpDiff('PodSpec', oldSpec, munged)}`,
      ),
    );
  }
  return errs;
}

/** ValidateContainerStateTransition: terminated containers stay terminated unless they restart. */
function validateContainerStateTransition(next: J[], old: J[], p: FieldPath, restartPolicy: string): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  old.forEach((o, i) => {
    const term = obj(obj(o.state)?.terminated);
    if (!term) return;
    if ((term.exitCode ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    for (const nw of next) {
      if (s(o.name) === s(nw.name) && !obj(obj(nw.state)?.terminated)) errs.push(forbidden(p.index(i).child('state'), 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

/** ValidatePodStatusUpdate (ObjectMeta update rules aside). */
export function validatePodStatusUpdate(pod: KubeObject, old: KubeObject, opts: PodValidationOptions): FieldError[] {
  const spec = obj(pod.spec) ?? {};
  const oldSpec = obj(old.spec) ?? {};
  const status = obj(pod.status) ?? {};
  const oldStatus = obj(old.status) ?? {};
  const errs = validatePodAnnotationUpdates(obj(pod.metadata.annotations) ?? {}, obj(old.metadata.annotations) ?? {}, spec, metaAnnotations, opts);
  // kube names this path metadata.conditions[i].Type (sic).
  list(status.conditions).forEach((c, i) => {
    const t = s(c.type);
    if (['PodScheduled', 'Ready', 'Initialized'].includes(t)) return;
    errs.push(...isQualifiedName(t).map((m) => invalid(new FieldPath('metadata').child('conditions').index(i).child('Type'), t, m)));
  });
  const sp = new FieldPath('status');
  if (s(spec.nodeName) !== s(oldSpec.nodeName)) errs.push(forbidden(sp.child('nodeName'), 'may not be changed directly'));
  const nominated = s(status.nominatedNodeName);
  if (nominated !== s(oldStatus.nominatedNodeName) && nominated) errs.push(...isDNS1123Subdomain(nominated).map((m) => invalid(sp.child('nominatedNodeName'), nominated, m)));
  const rp = s(oldSpec.restartPolicy);
  errs.push(...validateContainerStateTransition(list(status.containerStatuses), list(oldStatus.containerStatuses), sp.child('containerStatuses'), rp));
  errs.push(...validateContainerStateTransition(list(status.initContainerStatuses), list(oldStatus.initContainerStatuses), sp.child('initContainerStatuses'), rp));
  errs.push(...validateContainerStateTransition(list(status.ephemeralContainerStatuses), list(oldStatus.ephemeralContainerStatuses), sp.child('ephemeralContainerStatuses'), 'Never'));
  const ips = list(status.podIPs);
  const ipPath = sp.child('podIPs');
  ips.forEach((ip, i) => {
    if (!parseIP(s(ip.ip))) errs.push(invalid(ipPath.index(i), s(ip.ip), 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  });
  if (ips.length > 1) {
    const parsed = ips.map((ip) => parseIP(s(ip.ip)));
    const families = new Set(parsed.map((x) => x?.family));
    // netutils.IsDualStackIPStrings fails on the first unparsable address.
    if (!parsed.every(Boolean)) errs.push(internalError(ipPath, 'failed to check for dual stack with error:ip <nil> is invalid'));
    const dualStack = parsed.every(Boolean) && families.size === 2;
    const goIPs = new GoValue(`[]core.PodIP{${ips.map((ip) => `core.PodIP{IP:${JSON.stringify(s(ip.ip))}}`).join(', ')}}`);
    if (!dualStack || ips.length > 2) errs.push(invalid(ipPath, goIPs, 'may specify no more than one IP for each IP family'));
    const seen = new Set<string>();
    ips.forEach((ip, i) => {
      if (seen.has(s(ip.ip))) errs.push(duplicate(ipPath.index(i), new GoValue(`core.PodIP{IP:${JSON.stringify(s(ip.ip))}}`)));
      seen.add(s(ip.ip));
    });
  }
  return errs;
}

/** ValidatePodEphemeralContainersUpdate (ObjectMeta update rules aside). */
export function validatePodEphemeralContainersUpdate(pod: KubeObject, old: KubeObject, opts: PodValidationOptions, volumes: VolumesValidator): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod, opts, volumes);
  errs.push(...validatePodAnnotationUpdates(obj(pod.metadata.annotations) ?? {}, obj(old.metadata.annotations) ?? {}, obj(pod.spec) ?? {}, metaAnnotations, opts));
  const p = specPath.child('ephemeralContainers');
  const byName = new Map(list(obj(pod.spec)?.ephemeralContainers).map((c) => [s(c.name), c]));
  for (const o of list(obj(old.spec)?.ephemeralContainers)) {
    const nw = byName.get(s(o.name));
    if (!nw) errs.push(forbidden(p, `existing ephemeral containers ${JSON.stringify(s(o.name))} may not be removed\n`));
    else if (!jsonEqual(o, nw)) errs.push(forbidden(p, `existing ephemeral containers ${JSON.stringify(s(o.name))} may not be changed\n${cmpDiff('EphemeralContainer', o, nw)}`));
  }
  return errs;
}
