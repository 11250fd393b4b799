/**
 * Feature gates with Kubernetes 1.24's defaults, parsed from `--feature-gates` as
 * component-base/featuregate does ("A=true,B=false"; unknown gate, bad boolean and changing a
 * locked GA gate are start-up errors with kube's messages). One FeatureGates value per server,
 * handed to whatever needs a gate (decoding, strategies dropping gated fields).
 */

/** A gate's maturity (featuregate.PreRelease). */
export type Stage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

/** One gate's definition (featuregate.FeatureSpec). */
export interface FeatureSpec {
  default: boolean;
  stage: Stage;
  /** GA gates that can no longer be changed. */
  lockToDefault?: boolean;
}

/** The gates this server knows, with 1.24.17's defaults (pkg/features, apiserver/pkg/features). */
export const KNOWN_GATES = {
  ServerSideFieldValidation: { default: false, stage: 'ALPHA' },
  ServerSideApply: { default: true, stage: 'GA' },
  AnyVolumeDataSource: { default: true, stage: 'BETA' },
  RecoverVolumeExpansionFailure: { default: false, stage: 'ALPHA' },
  ReadWriteOncePod: { default: false, stage: 'ALPHA' },
  DelegateFSGroupToCSIDriver: { default: true, stage: 'BETA' },
  CSIInlineVolume: { default: true, stage: 'BETA' },
  CSIMigration: { default: true, stage: 'BETA' },
  LocalStorageCapacityIsolation: { default: true, stage: 'BETA' },
  EphemeralContainers: { default: true, stage: 'BETA' },
  ExpandPersistentVolumes: { default: true, stage: 'GA' },
  CSIStorageCapacity: { default: true, stage: 'GA', lockToDefault: true },
  CSIServiceAccountToken: { default: true, stage: 'GA', lockToDefault: true },
  GenericEphemeralVolume: { default: true, stage: 'GA', lockToDefault: true },
  CSIVolumeFSGroupPolicy: { default: true, stage: 'GA', lockToDefault: true },
  IPv6DualStack: { default: true, stage: 'GA', lockToDefault: true },
  ServiceLBNodePortControl: { default: true, stage: 'GA', lockToDefault: true },
  ServiceLoadBalancerClass: { default: true, stage: 'GA', lockToDefault: true },
  MixedProtocolLBService: { default: true, stage: 'BETA' },
  ServiceInternalTrafficPolicy: { default: true, stage: 'BETA' },
  ServiceIPStaticSubrange: { default: false, stage: 'ALPHA' },
  ProbeTerminationGracePeriod: { default: false, stage: 'BETA' },
  LegacyServiceAccountTokenNoAutoGeneration: { default: true, stage: 'BETA' },
  HPAContainerMetrics: { default: false, stage: 'ALPHA' },
  HPAScaleToZero: { default: false, stage: 'ALPHA' },
  JobTrackingWithFinalizers: { default: false, stage: 'BETA' },
  JobMutableNodeSchedulingDirectives: { default: true, stage: 'BETA' },
  CronJobTimeZone: { default: false, stage: 'ALPHA' },
} as const satisfies Record<string, FeatureSpec>;

/** A gate name. */
export type Feature = keyof typeof KNOWN_GATES;

/** A bad `--feature-gates` value; `message` is component-base's. */
export class FeatureGateError extends Error {}

/** strconv.ParseBool. */
function parseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** The enabled state of every known gate. */
export class FeatureGates {
  private readonly enabledGates = new Map<string, boolean>();

  /** `spec`: a `--feature-gates` value (or a map of gate → bool); throws FeatureGateError. */
  constructor(spec: string | Record<string, boolean> = '') {
    const m = typeof spec === 'string' ? FeatureGates.parse(spec) : new Map(Object.entries(spec));
    for (const [k, v] of m) {
      const s = (KNOWN_GATES as Record<string, FeatureSpec>)[k];
      if (!s) throw new FeatureGateError(`unrecognized feature gate: ${k}`);
      if (s.lockToDefault && s.default !== v) throw new FeatureGateError(`cannot set feature gate ${k} to ${v}, feature is locked to ${s.default}`);
      this.enabledGates.set(k, v);
    }
  }

  private static parse(value: string): Map<string, boolean> {
    const m = new Map<string, boolean>();
    for (const s of value.split(',')) {
      if (!s) continue;
      const eq = s.indexOf('=');
      const k = (eq < 0 ? s : s.slice(0, eq)).trim();
      if (eq < 0) throw new FeatureGateError(`missing bool value for ${k}`);
      const v = s.slice(eq + 1).trim();
      const b = parseBool(v);
      if (b === undefined) throw new FeatureGateError(`invalid value of ${k}=${v}, err: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
      m.set(k, b);
    }
    return m;
  }

  /** Is the gate on? */
  /** The gates set explicitly (what the constructor was given): how a serving thread gets them. */
  get overrides(): Record<string, boolean> {
    return Object.fromEntries(this.enabledGates);
  }

  enabled(f: Feature): boolean {
    return this.enabledGates.get(f) ?? KNOWN_GATES[f].default;
  }
}

/** 1.24's defaults (no `--feature-gates`). */
export const DEFAULT_GATES = new FeatureGates();
