// What has been started, in order, so that it can be stopped in reverse order
// whenever the run ends: normally, on Ctrl-C, or after a failed start.
import { errorMessage } from '../../lambdas/common/error-message';

export class Teardown {
  private readonly steps: { name: string; stop: () => Promise<void> }[] = [];
  private running: Promise<void> | undefined;

  add(name: string, stop: () => Promise<void>): void {
    this.steps.push({ name, stop });
  }

  /**
   * Stops everything once (later calls wait for the first); a failing step
   * does not stop the others. Failures go to `log`, or without one are
   * thrown together once every step has run.
   */
  run(log?: (message: string) => void): Promise<void> {
    this.running ??= (async () => {
      const failures: string[] = [];
      for (const step of this.steps.reverse()) {
        try {
          await step.stop();
        } catch (error) {
          const message = `could not stop ${step.name}: ${errorMessage(error)}`;
          if (log) log(message);
          else failures.push(message);
        }
      }
      this.steps.length = 0;
      if (failures.length > 0) throw new Error(failures.join('\n'));
    })();
    return this.running;
  }
}
