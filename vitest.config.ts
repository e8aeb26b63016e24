import { defineConfig } from 'vitest/config';

// Two projects: fast pure-logic unit tests, and end-to-end tests that run
// against the local control plane (real kube-apiserver, kube-scheduler,
// kube-controller-manager, etcd) and moto_server started by local/.
//
// Both share one pool of WORKERS processes: in the runs measured, the e2e
// files went first, two at a time, and the unit files after them on the same
// workers (docs/local-harness.md, Timings). The e2e global setup starts one
// control plane and moto_server per worker; a file uses its worker's
// (VITEST_POOL_ID), so e2e files run side by side and still have a cluster
// to themselves. Two, for the 2-core machines CI runs on; the projects must
// agree (vitest runs projects with different worker counts one after the
// other).
const WORKERS = 2;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Files of a worker share one process and its module cache: a third
          // less time than importing everything again per file. What a file
          // can leave behind for the next is put back by the setup file.
          isolate: false,
          setupFiles: ['test/unit/support/restore-process-state.ts'],
          testTimeout: 30_000,
          maxWorkers: WORKERS,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          maxWorkers: WORKERS,
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
