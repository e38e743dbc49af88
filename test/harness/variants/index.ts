/**
 * Deliberately broken variants of our own server, each breaking exactly one rule of the spec:
 * the harness must catch every one of them (at least one check fails) while passing the real
 * server. Runtime-neutral: each wraps the core's `fetch(Request) → Response`.
 */
import { authVariants, envelopeVariants } from './auth.ts';
import { exportSlotVariants } from './export-slots.ts';
import { exportVariants } from './exports.ts';
import { filterVariants } from './filters.ts';
import type { Variant } from './kit.ts';
import { limitsVariants } from './limits.ts';
import { pagingVariants } from './paging.ts';
import { resourceVariants } from './resources.ts';
import { scopeVariants } from './scope.ts';

export type { FetchHandler, Variant } from './kit.ts';

export const VARIANTS: Variant[] = [
  ...authVariants,
  ...envelopeVariants,
  ...limitsVariants,
  ...scopeVariants,
  ...pagingVariants,
  ...filterVariants,
  ...resourceVariants,
  ...exportVariants,
  ...exportSlotVariants,
];
