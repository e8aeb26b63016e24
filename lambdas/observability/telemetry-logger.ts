import { Logger } from '@aws-lambda-powertools/logger';

type LogKeys = Parameters<Logger['appendKeys']>[0];

/**
 * Powertools' Logger that remembers whether anything beyond the formatter's
 * standard keys was ever given to it (appended keys, a Lambda context, a
 * correlation id): Telemetry.info writes its line itself only while none was
 * (info-line.ts), since only then is that line the one Powertools writes.
 */
export class TelemetryLogger extends Logger {
  // Not a class field: Logger's constructor could call the overrides before
  // a field initialiser runs, and the initialiser would then reset it.
  declare private extraKeysGiven: boolean | undefined;

  /** Whether each line carries only the formatter's own keys and the caller's. */
  get onlyStandardKeys(): boolean {
    return this.extraKeysGiven !== true;
  }

  override appendKeys(attributes: LogKeys): void {
    this.extraKeysGiven = true;
    super.appendKeys(attributes);
  }

  override appendPersistentKeys(attributes: LogKeys): void {
    this.extraKeysGiven = true;
    super.appendPersistentKeys(attributes);
  }

  override setPersistentLogAttributes(attributes: LogKeys): void {
    this.extraKeysGiven = true;
    super.setPersistentLogAttributes(attributes);
  }

  override addContext(context: Parameters<Logger['addContext']>[0]): void {
    this.extraKeysGiven = true;
    super.addContext(context);
  }

  override setCorrelationId(value: unknown, correlationIdPath?: string): void {
    this.extraKeysGiven = true;
    super.setCorrelationId(value, correlationIdPath);
  }
}
