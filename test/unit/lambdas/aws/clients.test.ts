import { describe, expect, it } from 'vitest';
import { AWS_RETRY, createCloudWatchClient, createEc2Client, createEksClient } from '../../../../lambdas/aws/clients';

describe('the SDK clients of the Lambdas', () => {
  it('all retry as AWS_RETRY says (standard mode, 4 attempts), with or without a local endpoint', async () => {
    for (const config of [{ region: 'us-east-1' }, { region: 'us-east-1', endpoint: 'http://127.0.0.1:5000' }]) {
      for (const client of [createEc2Client(config), createEksClient(config), createCloudWatchClient(config)]) {
        expect(await client.config.maxAttempts()).toBe(AWS_RETRY.maxAttempts);
        const strategy = await client.config.retryStrategy();
        expect('mode' in strategy ? strategy.mode : undefined).toBe('standard');
      }
    }
  });
});
