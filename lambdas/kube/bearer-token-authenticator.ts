import type { KubeConfig, User } from '@kubernetes/client-node';
import type { BearerTokenSource } from './eks-token-source';

/** client-node does not export its Authenticator interface; take it from the method that accepts one. */
type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];
type AuthenticationOptions = Parameters<Authenticator['applyAuthentication']>[1];

/** The auth-provider name our KubeConfig user carries so this authenticator claims it. */
export const EKS_AUTH_PROVIDER_NAME = 'eks-presigned-sts';

/**
 * client-node asks the authenticator on every request, so a token refreshed by
 * the source is picked up without rebuilding the KubeConfig or API clients.
 */
export class BearerTokenAuthenticator implements Authenticator {
  constructor(private readonly source: BearerTokenSource) {}

  isAuthProvider(user: User): boolean {
    const provider: unknown = user.authProvider;
    return typeof provider === 'object' && provider !== null && 'name' in provider && provider.name === EKS_AUTH_PROVIDER_NAME;
  }

  async applyAuthentication(_user: User, opts: AuthenticationOptions): Promise<void> {
    const token = await this.source.token();
    opts.headers = { ...opts.headers, Authorization: `Bearer ${token}` };
  }
}
