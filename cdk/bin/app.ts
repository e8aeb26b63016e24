import { App } from 'aws-cdk-lib';
import { AppConfigError } from '../app-config/app-config-error';
import { CONFIG_CONTEXT_KEY, CONFIG_FILE_CONTEXT_KEY, loadAppConfig } from '../app-config/load-app-config';
import { buildApp } from '../lib/build-app';

const app = new App();
try {
  const config = loadAppConfig({
    configFile: app.node.tryGetContext(CONFIG_FILE_CONTEXT_KEY) as unknown,
    inline: app.node.tryGetContext(CONFIG_CONTEXT_KEY) as unknown,
    cwd: process.cwd(),
  });
  buildApp(app, config);
} catch (error) {
  if (error instanceof AppConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
