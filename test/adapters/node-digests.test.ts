import { describe, expect, it } from 'vitest';
import { webDigests } from '../../core/index.ts';
import { nodeDigests } from '../../adapters/shared/node-digests.ts';

describe('the node:crypto digests the adapters pass to the core', () => {
  const texts = ['', 'vi_live_4b8ed8522926b39fe4cd0b2b4acf0e200764fbe2', 'events:per_1\nWzE3MDAwMDAwMDAsImV2dF8xIiwxXQ', 'naïve ☃ 𝄞'];

  it('hash every text to the same SHA-256 as WebCrypto', async () => {
    for (const text of texts) expect(nodeDigests.sha256Hex(text)).toBe(await webDigests.sha256Hex(text));
  });

  it('sign every text to the same HMAC-SHA256 as WebCrypto, under any secret', async () => {
    for (const secret of ['cursor:s3cret', 'download:ünïcode']) {
      const web = webDigests.hmacSha256(secret);
      const node = nodeDigests.hmacSha256(secret);
      for (const text of texts) expect(node(text)).toBe(await web(text));
    }
  });

  it('give different signatures under different secrets', () => {
    expect(nodeDigests.hmacSha256('a')('text')).not.toBe(nodeDigests.hmacSha256('b')('text'));
  });
});
