/** What the labeler was asked to do, parsed from the EventBridge event. */
export type LabelerRequest =
  | { readonly kind: 'instanceRunning'; readonly instanceId: string; readonly eventTime: number | undefined }
  | { readonly kind: 'instanceNotRunning'; readonly instanceId: string; readonly state: string }
  | { readonly kind: 'reconcile' }
  | { readonly kind: 'invalid'; readonly reason: string };

export const STATE_CHANGE_DETAIL_TYPE = 'EC2 Instance State-change Notification';
export const SCHEDULED_DETAIL_TYPE = 'Scheduled Event';
const INSTANCE_ID_PATTERN = /^i-[0-9a-f]{8,17}$/;

/**
 * Accepts exactly the two events the labeler's rules deliver: an EC2
 * state-change from aws.ec2 and the scheduled reconcile from aws.events.
 * Anything else is "invalid" with a reason; the caller logs it and returns,
 * because throwing would make Lambda retry an event that can never succeed.
 */
export function parseLabelerEvent(event: unknown): LabelerRequest {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    return { kind: 'invalid', reason: 'event is not a JSON object' };
  }
  const record = event as Record<string, unknown>;
  const source = record['source'];
  const detailType = record['detail-type'];

  if (source === 'aws.events' && detailType === SCHEDULED_DETAIL_TYPE) return { kind: 'reconcile' };

  if (source !== 'aws.ec2') return { kind: 'invalid', reason: `unexpected source ${JSON.stringify(source)}` };
  if (detailType !== STATE_CHANGE_DETAIL_TYPE) {
    return { kind: 'invalid', reason: `unexpected detail-type ${JSON.stringify(detailType)} from aws.ec2` };
  }
  const detail = record['detail'];
  if (typeof detail !== 'object' || detail === null) return { kind: 'invalid', reason: 'state-change event has no detail' };
  const instanceId = (detail as Record<string, unknown>)['instance-id'];
  const state = (detail as Record<string, unknown>)['state'];
  if (typeof instanceId !== 'string' || !INSTANCE_ID_PATTERN.test(instanceId)) {
    return { kind: 'invalid', reason: `detail.instance-id is missing or not an instance id (${JSON.stringify(instanceId)})` };
  }
  if (typeof state !== 'string' || state === '') return { kind: 'invalid', reason: 'detail.state is missing' };
  if (state !== 'running') return { kind: 'instanceNotRunning', instanceId, state };
  const time = record['time'];
  const parsedTime = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  return { kind: 'instanceRunning', instanceId, eventTime: Number.isFinite(parsedTime) ? parsedTime : undefined };
}
