// Prints the optional monitoring objects of the app's configuration, as the
// stack would apply them: `npm run monitoring -- <what> [--config <file>]`.
//   dashboard      the Grafana dashboard's JSON model (import it into Amazon Managed Grafana)
//   scrape-config  a Prometheus scrape job for the second scheduler (Amazon Managed Service
//                  for Prometheus's collector, or a Prometheus without the Operator)
//   manifests      the PodMonitor, its Role and RoleBinding, and the dashboard ConfigMap
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { AppConfigError } from '../app-config/config-reader';
import { CONFIG_CONTEXT_KEY, CONFIG_FILE_CONTEXT_KEY, loadAppConfig } from '../app-config/load-app-config';
import { dashboardModel, grafanaDashboardConfigMap, scrapeJob } from '../lib/monitoring/monitoring-manifests';
import { schedulerPodMonitorManifests } from '../lib/monitoring/scheduler-scrape';

const USAGE = 'usage: npm run monitoring -- dashboard|scrape-config|manifests [--config <file>]';
const WHAT = ['dashboard', 'scrape-config', 'manifests'] as const;

function main(): void {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  const what = positionals[0];
  if (values.help) return void console.log(USAGE);
  if (positionals.length !== 1 || !WHAT.includes(what as (typeof WHAT)[number])) throw new UsageError(`expected one of ${WHAT.join(', ')}, got ${JSON.stringify(positionals.join(' '))}`);
  // As `cdk synth` reads it: cdk.json's context, unless --config names a file.
  const context = (JSON.parse(readFileSync(join(process.cwd(), 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
  const config = loadAppConfig({
    configFile: values.config ?? context[CONFIG_FILE_CONTEXT_KEY],
    inline: values.config === undefined ? context[CONFIG_CONTEXT_KEY] : undefined,
    cwd: process.cwd(),
  });
  if (what === 'dashboard') return void console.log(JSON.stringify(dashboardModel(config), null, 2));
  if (what === 'scrape-config') return void console.log(stringify({ scrape_configs: [scrapeJob(config)] }));
  const podMonitor = schedulerPodMonitorManifests({ namespace: config.scheduler.namespace, schedulerName: config.scheduler.name, ...config.monitoring.podMonitor });
  console.log([...podMonitor, grafanaDashboardConfigMap(config)].map((o) => stringify(o)).join('---\n'));
}

class UsageError extends Error {}

try {
  main();
} catch (error) {
  if (error instanceof UsageError || error instanceof AppConfigError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  throw error;
}
