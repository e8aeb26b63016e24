// Prints the optional monitoring objects of the app's configuration, as the
// stack would apply them (docs/monitoring.md).
import { stringify } from 'yaml';
import { defineCli, isEntryPoint, readCommandLine, UsageError } from '../../cli/command-line';
import type { AppConfig } from '../app-config/app-config';
import { AppConfigError } from '../app-config/app-config-error';
import { dashboardModel, grafanaDashboardConfigMap, scrapeJob } from '../lib/monitoring/monitoring-manifests';
import { schedulerPodMonitorManifests } from '../lib/monitoring/scheduler-scrape';
import { loadToolConfig } from './tool-config';

const WHAT = ['dashboard', 'scrape-config', 'manifests'] as const;
type What = (typeof WHAT)[number];

export const MONITORING_CLI = defineCli({
  usage: 'npm run monitoring -- --print dashboard|scrape-config|manifests [--config <file>]',
  summary: [
    'Prints the Prometheus and Grafana pieces for this configuration, as the stack builds them:',
    '  dashboard      the Grafana dashboard (JSON model; import it into Amazon Managed Grafana)',
    '  scrape-config  a Prometheus scrape job for the gpu-scheduler (Amazon Managed Service for',
    '                 Prometheus collector, or a Prometheus without the Operator)',
    '  manifests      the PodMonitor, its Role and RoleBinding, and the dashboard ConfigMap',
    'Exit 0 printed, 1 bad configuration, 2 bad usage.',
  ].join('\n'),
  options: {
    print: { type: 'string', value: 'what', description: 'dashboard, scrape-config or manifests (required)' },
    config: { type: 'string', value: 'file', description: "the app's config file (JSON or YAML); default: cdk.json's context, as cdk synth reads it" },
  },
  examples: [
    'npm run monitoring -- --print dashboard > gpu-scheduling-dashboard.json',
    'npm run monitoring -- --print scrape-config --config my-cluster.yaml',
  ],
});

function render(what: What, config: AppConfig): string {
  if (what === 'dashboard') return JSON.stringify(dashboardModel(config), null, 2);
  if (what === 'scrape-config') return stringify({ scrape_configs: [scrapeJob(config)] });
  const podMonitor = schedulerPodMonitorManifests({ namespace: config.scheduler.namespace, schedulerName: config.scheduler.name, ...config.monitoring.podMonitor });
  return [...podMonitor, grafanaDashboardConfigMap(config)].map((o) => stringify(o)).join('---\n');
}

export function main(argv: readonly string[]): number {
  const options = readCommandLine(MONITORING_CLI, argv, (values) => {
    const what = values.print;
    if (!WHAT.includes(what as What)) throw new UsageError(`--print must be one of ${WHAT.join(', ')}, got ${JSON.stringify(what ?? '')}`);
    return { what: what as What, config: values.config };
  });
  try {
    process.stdout.write(`${render(options.what, loadToolConfig(options.config))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof AppConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
