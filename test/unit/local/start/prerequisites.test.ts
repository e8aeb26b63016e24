import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingPrerequisites } from '../../../../local/start/prerequisites';

// npm start installs moto_server itself: only Python, which that needs, is a prerequisite.
const emptyBin = mkdtempSync(join(tmpdir(), 'prerequisites-test-'));
afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));

describe('missingPrerequisites', () => {
  it('asks for Python, not for moto_server, when neither is on PATH', () => {
    const missing = missingPrerequisites({ PATH: emptyBin, HOME: emptyBin });
    const aws = missing.filter((line) => line.includes('moto_server'));
    expect(aws).toHaveLength(1);
    expect(aws[0]).toMatch(/^Python 3 is required .*installed on first use/);
    expect(aws[0]).not.toContain('pip install');
  });

  it('needs nothing for the local AWS when python3 is on PATH or MOTO_URL is set', () => {
    expect(missingPrerequisites({ ...process.env }).filter((line) => line.includes('moto_server'))).toEqual([]);
    expect(missingPrerequisites({ PATH: emptyBin, HOME: emptyBin, MOTO_URL: 'http://127.0.0.1:5000' }).filter((line) => line.includes('moto_server'))).toEqual([]);
  });
});
