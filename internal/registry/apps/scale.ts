/** The apps/v1 kinds' `scale` subresource (core/scale.ts): the selector is a metav1.LabelSelector. */
import { scaleSubresource, scaleView } from '../core/scale.ts';
import { obj, selectorOf, specOf } from './workload.ts';

export const appsScaleView = scaleView((parent) => selectorOf(obj(specOf(parent).selector))?.toString() ?? '');

/** The scale subresource of an apps/v1 kind. */
export const appsScaleSubresource = scaleSubresource(appsScaleView);
