/**
 * Volume sources for the Pod kind and the storage kinds: validation (ValidateVolumes, the source
 * validators, PVC spec validation, field selectors shared with env) and defaulting, ported from
 * Kubernetes 1.24's pkg/apis/core/validation and pkg/apis/core/v1/defaults.go.
 */
export { type VolumeValidationOptions, type VolumesResult, type VolumeSourceKind, VOLUME_SOURCE_KINDS, validateVolumes, validateVolumeSource, validateDownwardAPIVolumeFile, volumeSourceKind } from './volumes.ts';
export { defaultVolume, defaultVolumes, defaultClaimSpec, defaultAzureDisk, defaultRBD, defaultScaleIO, defaultISCSI, defaultHostPath, DEFAULT_FILE_MODE } from './defaults.ts';
export {
  VOLUME_DOWNWARD_API_FIELD_PATHS,
  ENV_DOWNWARD_API_FIELD_PATHS,
  CONTAINER_RESOURCE_FIELD_PATHS,
  CONTAINER_RESOURCE_PREFIXES_WITH_HUGEPAGES,
  HUGEPAGES_REQUESTS_PREFIX,
  HUGEPAGES_LIMITS_PREFIX,
  splitMaybeSubscriptedPath,
  validateObjectFieldSelector,
  validateContainerResourceFieldSelector,
  validateContainerResourceDivisor,
} from './field-selectors.ts';
export {
  type ClaimSpecValidationOptions,
  SUPPORTED_ACCESS_MODES,
  SUPPORTED_VOLUME_MODES,
  validateClaimSpec,
  validateDataSource,
  validateLabelSelector,
  validateLabelName,
  validateAccessModes,
  typedRefsEqual,
} from './pvc-spec.ts';
export {
  type QuantityValue,
  quantityValue,
  compareValues,
  compareQuantities,
  quantitySign,
  quantityIntValue,
  roundUpToMilli,
  defaultResourceList,
  validatePositiveQuantityValue,
  validateNonnegativeQuantity,
  validateBasicResource,
  IS_NOT_POSITIVE_ERROR_MSG,
  IS_NEGATIVE_ERROR_MSG,
} from './quantity.ts';
export { validateCSIDriverName, validateDNS1123Label, validateKeyToPath, HOST_PATH_TYPES } from './sources.ts';
export { FILE_MODE_ERROR_MSG, validatePathNoBacksteps, validateLocalDescendingPath, validateLocalNonReservedPath, cleanPath } from './util.ts';
