import type { Check } from '../types.ts';
import { authChecks } from './auth.ts';

/** Every check, in the order they run (destructive ones are moved last by the runner). */
export const ALL_CHECKS: Check[] = [...authChecks];
