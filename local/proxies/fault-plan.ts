// The one vocabulary of the harness's fault-injecting proxies (in front of
// moto, aws-fault-proxy.ts, and of the API server, kube-api-proxy.ts): a
// plan is asked, for each call, with the call as the proxy describes it and
// which attempt of that call this is, and answers a fault or nothing (the
// call is forwarded as it is). Each proxy renders a fault in its service's
// own wire format.
export type Fault =
  /** Forwarded after `ms` (a slow service or network). */
  | { readonly kind: 'delay'; readonly ms: number }
  /** Answered by the proxy with the service's own throttling error (EC2's RequestLimitExceeded, CloudWatch's Throttling, the API server's 429). */
  | { readonly kind: 'throttle' }
  /** Answered by the proxy with this HTTP status and an error body in the service's format; `reason` and `message` default to the status's usual ones. */
  | { readonly kind: 'status'; readonly status: number; readonly reason?: string; readonly message?: string }
  /** Forwarded, then the client's connection is reset once `afterBytes` bytes of the response body have passed (cut mid-object). */
  | { readonly kind: 'cut'; readonly afterBytes: number };

export type FaultKind = Fault['kind'];

/** A call's fault from the call and which attempt of it this is (1 = the first); undefined forwards it as it is. */
export type FaultPlan<Call> = (call: Call, attempt: number) => Fault | undefined;

/** Attempts per call key since the start or the last reset: a retry is the same call again. */
export class Attempts {
  private readonly counts = new Map<string, number>();

  /** Counts one more attempt of `key` and returns its number (1 = the first). */
  next(key: string): number {
    const attempt = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, attempt);
    return attempt;
  }

  get byKey(): ReadonlyMap<string, number> {
    return this.counts;
  }

  reset(): void {
    this.counts.clear();
  }
}
