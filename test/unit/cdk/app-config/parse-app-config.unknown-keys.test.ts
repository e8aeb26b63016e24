import { describe, expect, it } from 'vitest';
import { AppConfigError } from '../../../../cdk/app-config/app-config-error';
import type { ConfigProblem } from '../../../../cdk/app-config/app-config-error';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';

function problemsOf(raw: unknown): readonly ConfigProblem[] {
  try {
    parseAppConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(AppConfigError);
    return (error as AppConfigError).problems;
  }
  throw new Error('expected the config to be rejected');
}

const existingCluster = {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['us-east-1a', 'us-east-1b'],
  privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
  clusterSecurityGroupId: 'sg-0123456789abcdef0',
};

describe('parseAppConfig names unknown keys with the key they most likely meant', () => {
  it('suggests the closest key for a misspelling', () => {
    expect(problemsOf({ cluster: { endpointAcess: 'private' } })).toEqual([
      { key: 'cluster.endpointAcess', problem: 'unknown key; did you mean endpointAccess?' },
    ]);
  });

  it('names a key that differs only in case instead of calling the real one missing', () => {
    const { vpcId, ...rest } = existingCluster;
    const problems = problemsOf({ cluster: { mode: 'existing', existing: { ...rest, vpcID: vpcId } } });
    expect(problems).toEqual([{ key: 'cluster.existing.vpcID', problem: 'unknown key; did you mean vpcId?' }]);
  });

  it('lists the allowed keys, and suggests none, for a key far from all of them', () => {
    const [problem, ...more] = problemsOf({ alarms: { colour: 'blue' } });
    expect(more).toEqual([]);
    expect(problem?.key).toBe('alarms.colour');
    expect(problem?.problem).not.toContain('did you mean');
    expect(problem?.problem).toMatch(/^unknown key \(allowed keys here: certificateDaysToExpiry, createSnsTopic, email, .*topicArn\)$/);
  });

  it('reports unknown keys at several levels together with bad values, in one error', () => {
    let message = '';
    try {
      parseAppConfig({
        stackname: 'x',
        cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ minsize: 1 }], natGateways: 9 },
        scheduler: { extender: { wieght: 5 } },
        labeler: { retryAttempts: 3 },
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'invalid configuration (5 problems):',
      '  cluster.gpuNodeGroups[0].minsize: unknown key; did you mean minSize?',
      '  cluster.natGateways: must be an integer from 1 to 2, got 9',
      '  scheduler.extender.wieght: unknown key; did you mean weight?',
      '  labeler.retryAttempts: must be an integer from 0 to 2, got 3',
      '  stackname: unknown key; did you mean stackName?',
    ]);
  });

  it('keeps a missing required key when the unknown key does not look like it', () => {
    const { clusterSecurityGroupId, ...rest } = existingCluster;
    expect(clusterSecurityGroupId).toMatch(/^sg-/);
    const problems = problemsOf({ cluster: { mode: 'existing', existing: { ...rest, securityGroup: 'sg-0123456789abcdef0' } } });
    expect(problems.map((p) => p.key)).toEqual(['cluster.existing.clusterSecurityGroupId', 'cluster.existing.securityGroup']);
    expect(problems[0]?.problem).toMatch(/^is required/);
  });
});
