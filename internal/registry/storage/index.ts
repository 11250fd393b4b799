/** The storage.k8s.io group's kinds: v1, and 1.24's deprecated v1beta1 CSIStorageCapacity. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { storageClassKind } from './storageclass.ts';
import { volumeAttachmentKind } from './volumeattachment.ts';
import { csiDriverKind } from './csidriver.ts';
import { csiNodeKind } from './csinode.ts';
import { csiStorageCapacityKind, csiStorageCapacityV1beta1Kind } from './csistoragecapacity.ts';

export { storageClassKind, volumeAttachmentKind, csiDriverKind, csiNodeKind, csiStorageCapacityKind, csiStorageCapacityV1beta1Kind };

/** Registration order of the group's kinds (discovery sorts them by name anyway). */
export const storageKinds: KindDescriptor[] = [storageClassKind, volumeAttachmentKind, csiDriverKind, csiNodeKind, csiStorageCapacityKind, csiStorageCapacityV1beta1Kind];
