export { establishBase, headerUrlValue, NO_BASE } from './base.ts';
export type { BaseDecision, BaseLayers, BaseOptions, BaseSource, EntityHeaders, IgnoredLayer, Retrieval } from './base.ts';
