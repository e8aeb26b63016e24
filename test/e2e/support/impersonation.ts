// A connection as one of the stack's Kubernetes groups, without an identity of
// its own on the local control plane: the admin's token, with the request
// impersonating a user in that group only (RBAC and admission then judge the
// group, as they judge an EKS access entry's). `server` sends it through a
// proxy (same CA) instead of straight to the API server.
import { KubeConfig, type User } from '@kubernetes/client-node';
import type { RequestOptions } from 'node:https';

export function impersonating(admin: KubeConfig, group: string, user = `${group}-user`, server?: string): KubeConfig {
  const cluster = admin.getCurrentCluster();
  const token = admin.getCurrentUser()?.token;
  if (!cluster || !token) throw new Error('the admin kubeconfig has no cluster or token');
  const kc = new KubeConfig();
  kc.addAuthenticator({
    isAuthProvider: (candidate: User) => candidate.authProvider?.name === 'impersonate',
    applyAuthentication: (_user: User, opts: RequestOptions) => {
      opts.headers = { ...opts.headers, authorization: `Bearer ${token}`, 'impersonate-user': user, 'impersonate-group': group };
      return Promise.resolve();
    },
  });
  kc.loadFromOptions({
    clusters: [{ ...cluster, ...(server === undefined ? {} : { server }) }],
    users: [{ name: user, authProvider: { name: 'impersonate', config: {} } }],
    contexts: [{ name: user, cluster: cluster.name, user }],
    currentContext: user,
  });
  return kc;
}
