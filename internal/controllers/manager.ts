/**
 * The controller manager: every control loop of the server, by name, started in two stages and
 * stopped in one place — kube-controller-manager's map of name → init function
 * (cmd/kube-controller-manager/app/controllermanager.go NewControllerInitializers) plus the
 * controllers kube-apiserver runs itself (its post-start hooks).
 *
 * `--controllers` selects kube-controller-manager's controllers with its syntax (`*` = every
 * on-by-default controller, `name` = on, `-name` = off; the first entry naming a controller wins)
 * and its names, so a real kube-controller-manager can take over the ones turned off here. The
 * controllers that kube-apiserver itself runs (the `kubernetes` Service and the service IP/port
 * repair loops of its bootstrap-controller, the cluster-authentication-trust controller, event TTL)
 * are not selectable: they always run, as in kube.
 */
import type { Logger } from 'pino';
import type { Controller } from './controller.ts';

/**
 * kube-controller-manager 1.24's known controllers (KnownControllers(): NewControllerInitializers
 * with the cloud loops, plus serviceaccount-token). `--controllers` accepts every one of them, so
 * the same value works for both; the ones this server does not implement select nothing.
 */
export const KUBE_CONTROLLER_MANAGER_CONTROLLERS: readonly string[] = [
  'attachdetach', 'bootstrapsigner', 'cloud-node-lifecycle', 'clusterrole-aggregation', 'cronjob', 'csrapproving',
  'csrcleaner', 'csrsigning', 'daemonset', 'deployment', 'disruption', 'endpoint', 'endpointslice',
  'endpointslicemirroring', 'ephemeral-volume', 'garbagecollector', 'horizontalpodautoscaling', 'job', 'namespace',
  'nodeipam', 'nodelifecycle', 'persistentvolume-binder', 'persistentvolume-expander', 'podgc', 'pv-protection',
  'pvc-protection', 'replicaset', 'replicationcontroller', 'resourcequota', 'root-ca-cert-publisher', 'route',
  'service', 'serviceaccount', 'serviceaccount-token', 'statefulset', 'tokencleaner', 'ttl', 'ttl-after-finished',
];

/** kube-controller-manager's ControllersDisabledByDefault. */
export const DISABLED_BY_DEFAULT: readonly string[] = ['bootstrapsigner', 'tokencleaner'];

/**
 * The `--controllers` list (a pflag string slice: comma-separated, repeatable), checked as
 * kube-controller-manager's GenericControllerManagerConfigurationOptions.Validate does: an unknown
 * name is a start-up error with kube's message.
 */
export function parseControllersFlag(values: readonly string[]): string[] {
  const list = values.flatMap((v) => (v === '' ? [] : v.split(',')));
  const errors = list.filter((c) => c !== '*' && !KUBE_CONTROLLER_MANAGER_CONTROLLERS.includes(c.replace(/^-/, ''))).map((c) => `${JSON.stringify(c.replace(/^-/, ''))} is not in the list of known controllers`);
  // utilerrors.NewAggregate's text: one error alone, several as [a, b].
  if (errors.length === 1) throw new Error(errors[0]);
  if (errors.length > 1) throw new Error(`[${errors.join(', ')}]`);
  return list;
}

/**
 * kube's IsControllerEnabled: the first entry naming the controller decides; otherwise `*`
 * turns on those not disabled by default; an empty list turns nothing on.
 */
export function controllerEnabled(name: string, list: readonly string[], disabledByDefault: readonly string[] = DISABLED_BY_DEFAULT): boolean {
  let star = false;
  for (const c of list) {
    if (c === name) return true;
    if (c === `-${name}`) return false;
    if (c === '*') star = true;
  }
  return star && !disabledByDefault.includes(name);
}

/** When a controller starts: before the server listens (on the path to ready) or once it serves. */
export type Stage = 'before-serving' | 'serving';

export interface ControllerSpec {
  /** kube's name: kube-controller-manager's for its controllers, the post-start hook's for kube-apiserver's. */
  name: string;
  /** Who runs it in kube: only kube-controller-manager's are selected by `--controllers`. */
  runBy: 'kube-controller-manager' | 'kube-apiserver';
  stage: Stage;
  /**
   * Builds the controller (called only when it is enabled); null when it has nothing to do here
   * (its kind is not served, or its flag turns it off).
   */
  make: () => Controller | null;
}

/** What the manager reports about one controller. */
export interface ControllerStatus {
  name: string;
  runBy: ControllerSpec['runBy'];
  /** 'running', or why not: turned off by --controllers, or nothing to do on this server. */
  state: 'running' | 'disabled' | 'not-applicable';
}

export class ControllerManager {
  private readonly specs: ControllerSpec[] = [];
  private readonly running: { name: string; controller: Controller }[] = [];
  private readonly statuses: ControllerStatus[] = [];

  /** `selection`: the parsed `--controllers` list (default `*`). */
  constructor(private readonly selection: readonly string[], private readonly log: Logger) {}

  /** Register a controller (in start order). */
  add(spec: ControllerSpec): this {
    this.specs.push(spec);
    return this;
  }

  /** Whether `--controllers` leaves a kube-controller-manager controller on (kube-apiserver's always are). */
  enabled(spec: Pick<ControllerSpec, 'name' | 'runBy'>): boolean {
    // tokencleaner is off by default in kube-controller-manager, but here it is what makes
    // --enable-bootstrap-token-auth complete: `*` keeps it on (its own flag decides), `-tokencleaner` turns it off.
    const disabledByDefault = DISABLED_BY_DEFAULT.filter((n) => n !== 'tokencleaner');
    return spec.runBy === 'kube-apiserver' || controllerEnabled(spec.name, this.selection, disabledByDefault);
  }

  /** Build and start every enabled controller of a stage, in registration order. */
  async start(stage: Stage): Promise<void> {
    for (const spec of this.specs.filter((s) => s.stage === stage)) {
      if (!this.enabled(spec)) {
        this.statuses.push({ name: spec.name, runBy: spec.runBy, state: 'disabled' });
        continue;
      }
      const controller = spec.make();
      if (!controller) {
        this.statuses.push({ name: spec.name, runBy: spec.runBy, state: 'not-applicable' });
        continue;
      }
      this.running.push({ name: spec.name, controller });
      this.statuses.push({ name: spec.name, runBy: spec.runBy, state: 'running' });
      await controller.start();
    }
    if (stage === 'serving') {
      const of = (state: ControllerStatus['state']): string[] => this.statuses.filter((s) => s.state === state).map((s) => s.name);
      this.log.info({ running: of('running'), disabled: of('disabled'), notApplicable: of('not-applicable') }, 'controllers started');
    }
  }

  /** Every registered controller and whether it runs. */
  report(): ControllerStatus[] {
    return [...this.statuses];
  }

  /** Stop every running controller, in start order (each finishes the step under way). */
  async stop(): Promise<void> {
    for (const { controller } of this.running) await controller.stop();
  }

  /** Resolves when every stopped controller has finished its work (errors are the controllers' to log). */
  async idle(): Promise<void> {
    for (const { controller } of this.running) await controller.idle().catch(() => undefined);
  }
}
