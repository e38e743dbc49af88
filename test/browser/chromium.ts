/** Debian's Chromium (or VI_TEST_CHROMIUM), driven headless without its background traffic. */
export const CHROMIUM = process.env.VI_TEST_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];
