/** The batch group's kinds: Job and CronJob (v1, preferred) and the deprecated v1beta1 CronJob. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { jobKind } from './job.ts';
import { cronJobKind, cronJobV1beta1Kind } from './cronjob.ts';

export { jobKind, cronJobKind, cronJobV1beta1Kind };

export const batchKinds: KindDescriptor[] = [jobKind, cronJobKind, cronJobV1beta1Kind];
