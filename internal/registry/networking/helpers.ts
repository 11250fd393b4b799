/** Field readers the networking.k8s.io kinds share (a wrong or absent type reads as Go's zero value). */
import type { KubeObject } from '../../api/types.ts';
import { isObj } from '../../gocompat/json.ts';

/** A string field ('' when absent or not a string). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** An array field ([] when absent). */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** An object field ({} when absent). */
export const obj = (v: unknown): Record<string, unknown> => (isObj(v) ? v : {});
/** The object's spec ({} when absent; read-only: not attached to the object). */
export const specOf = (o: KubeObject): Record<string, unknown> => obj(o.spec);
