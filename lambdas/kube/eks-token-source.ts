import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { createEksToken, TOKEN_VALIDITY_MS } from './eks-token';

/** Anything that hands out a current bearer token. */
export interface BearerTokenSource {
  token(): Promise<string>;
}

export interface EksTokenSourceOptions {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /**
   * How long a token is reused. EKS accepts it for 15 minutes; renewing after
   * 10 leaves room for clock skew and for a request that starts just before.
   */
  readonly refreshAfterMs?: number;
  /** Injected clock, for tests. */
  readonly now?: () => number;
}

export const DEFAULT_TOKEN_REFRESH_AFTER_MS = 10 * 60_000;

/**
 * Caches one token and signs a new one once it is older than refreshAfterMs.
 * Concurrent callers during a refresh share the same signing.
 */
export class EksTokenSource implements BearerTokenSource {
  private cached: { token: string; signedAt: number } | undefined;
  private inFlight: Promise<string> | undefined;
  private readonly refreshAfterMs: number;
  private readonly now: () => number;

  constructor(private readonly options: EksTokenSourceOptions) {
    this.refreshAfterMs = Math.min(options.refreshAfterMs ?? DEFAULT_TOKEN_REFRESH_AFTER_MS, TOKEN_VALIDITY_MS - 60_000);
    this.now = options.now ?? Date.now;
  }

  async token(): Promise<string> {
    const now = this.now();
    if (this.cached && now - this.cached.signedAt < this.refreshAfterMs) return this.cached.token;
    this.inFlight ??= this.sign(now).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async sign(now: number): Promise<string> {
    const token = await createEksToken({
      clusterName: this.options.clusterName,
      region: this.options.region,
      credentials: this.options.credentials,
      signingDate: new Date(now),
    });
    this.cached = { token, signedAt: now };
    return token;
  }
}
