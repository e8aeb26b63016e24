// EC2 emits "EC2 Instance State-change Notification" events to EventBridge;
// moto does not, so this watcher polls DescribeInstances and emits one event
// per state transition it observes (instances already present at start count
// as transitions too: the pipeline has never seen them).
import { paginateDescribeInstances, type EC2Client } from '@aws-sdk/client-ec2';
import { ec2StateChangeEvent, type EventBridgeEvent } from './event-bridge';

/** The labeler's EventBridge rule pattern (cdk/lib/gpu-scheduling-stack.ts, InstanceRunning). */
export function matchesInstanceRunningRule(event: EventBridgeEvent): boolean {
  return event.source === 'aws.ec2' && event['detail-type'] === 'EC2 Instance State-change Notification' && event.detail['state'] === 'running';
}

export class Ec2StateChangeSource {
  private readonly states = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly ec2: EC2Client,
    private readonly region: string,
    private readonly emit: (event: EventBridgeEvent) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.polling ??= this.poll()
        .catch(this.onError)
        .finally(() => {
          this.polling = undefined;
        });
    }, intervalMs);
  }

  /** One look at EC2; emits an event for every instance whose state changed since the last look. */
  async poll(): Promise<void> {
    for await (const page of paginateDescribeInstances({ client: this.ec2 }, {})) {
      for (const reservation of page.Reservations ?? []) {
        for (const instance of reservation.Instances ?? []) {
          const id = instance.InstanceId;
          const state = instance.State?.Name;
          if (!id || !state || this.states.get(id) === state) continue;
          this.states.set(id, state);
          this.emit(ec2StateChangeEvent(id, state, this.region));
        }
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
  }
}
