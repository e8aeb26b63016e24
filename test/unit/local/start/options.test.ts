import { describe, expect, it } from 'vitest';
import { parseStartOptions, UsageError } from '../../../../local/start/options';

describe('parseStartOptions', () => {
  it('defaults to the demo, kept running', () => {
    expect(parseStartOptions([], '/w')).toEqual({ demo: true, exitAfterDemo: false, scenarioFile: undefined, configFile: undefined });
  });

  it('resolves files against the directory npm was started from', () => {
    const options = parseStartOptions(['--scenario', 's.yaml', '--config', '/abs/c.json', '--exit-after-demo'], '/home/me');
    expect(options).toMatchObject({ scenarioFile: '/home/me/s.yaml', configFile: '/abs/c.json', exitAfterDemo: true, demo: true });
  });

  it('rejects unknown options and contradictions', () => {
    expect(() => parseStartOptions(['--nodemo'], '/w')).toThrow(UsageError);
    expect(() => parseStartOptions(['--no-demo', '--scenario', 'x.yaml'], '/w')).toThrow('--no-demo and --scenario exclude each other');
    expect(() => parseStartOptions(['--no-demo', '--exit-after-demo'], '/w')).toThrow('--no-demo and --exit-after-demo exclude each other');
    expect(() => parseStartOptions(['--scenario', ' '], '/w')).toThrow('--scenario needs a file path');
    expect(() => parseStartOptions(['positional'], '/w')).toThrow(UsageError);
  });
});
