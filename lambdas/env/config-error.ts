/**
 * A configuration value that is missing or invalid. The message names the
 * variable, the value found and what is allowed, so a failed cold start in
 * CloudWatch Logs says exactly which setting to fix.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    readonly variable: string,
    readonly value: string | undefined,
    readonly allowed: string,
  ) {
    super(
      value === undefined
        ? `${variable} is required but not set (allowed: ${allowed})`
        : `${variable}=${JSON.stringify(value)} is invalid (allowed: ${allowed})`,
    );
  }
}
