import type { Check } from '../types.ts';
import { authChecks } from './auth.ts';
import { errorsChecks } from './errors.ts';
import { eventFilterChecks } from './event-filters.ts';
import { filtersChecks } from './filters.ts';
import { limitsChecks } from './limits.ts';
import { pagingChecks } from './paging.ts';
import { scopeChecks } from './scope.ts';
import { resourceChecks } from './resources.ts';
import { exportChecks } from './exports.ts';
import { exportRequestChecks } from './export-requests.ts';
import { exportFileChecks } from './export-files.ts';

/** Every check, in the order they run; the runner moves destructive ones, then budget-spending ones, to the end. */
export const ALL_CHECKS: Check[] = [...authChecks, ...errorsChecks, ...pagingChecks, ...filtersChecks, ...eventFilterChecks, ...scopeChecks, ...resourceChecks, ...exportChecks, ...exportRequestChecks, ...exportFileChecks, ...limitsChecks];
