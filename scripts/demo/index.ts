/** Deterministic demo data for the Visitor Intelligence API, and the means to load it. */
export { DEMO_SITES, EVENT_BATCH_SIZE, generateDemo, type DemoData, type DemoOptions, type DemoSite } from './generate.ts';
export { seedDemo, type SeedCounts, type SeedProgress } from './seed.ts';
export { terminalProgress, type ProgressDisplay } from './progress.ts';
export { AD_PLATFORMS, INDUSTRIES, JOB_FUNCTIONS, REGIONS, SENIORITIES, TRAFFIC_TYPES } from './catalog.ts';
