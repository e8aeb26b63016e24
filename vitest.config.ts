import { defineConfig } from 'vitest/config';

// Two projects: fast pure-logic unit tests, and end-to-end tests that run
// against the local control plane (real kube-apiserver, kube-scheduler,
// kube-controller-manager, etcd) and moto_server started by local/.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          // One shared control plane; files run one after another so they do
          // not fight over the single kube-scheduler.
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
