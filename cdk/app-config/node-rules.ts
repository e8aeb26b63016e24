import type { NodeTaint } from './app-config';
import { TAINT_EFFECTS } from './app-config';
import { APP_CONFIG_DEFAULTS as DEFAULTS } from './app-config-defaults';
import type { ConfigReader } from './config-reader';

// The Kubernetes rules for what node groups and Karpenter NodePools put on
// their nodes (labels, taints), shared by both parsers.

export const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
export const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

export function parseTaint(reader: ConfigReader): NodeTaint {
  const defaults = DEFAULTS.cluster.eachTaint;
  const key = reader.requiredString('key', { pattern: QUALIFIED_NAME, allowed: 'a Kubernetes taint key such as nvidia.com/gpu' });
  const value = reader.string('value', { default: defaults.value, pattern: LABEL_VALUE, allowed: 'a Kubernetes label value' });
  const effect = reader.oneOf('effect', TAINT_EFFECTS, defaults.effect);
  reader.done();
  return { key, value, effect };
}

/** Node labels: Kubernetes label keys and values. */
export function parseNodeLabels(reader: ConfigReader, defaults: Readonly<Record<string, string>>): Record<string, string> {
  const labels = reader.stringMap('labels', { default: defaults, keyPattern: QUALIFIED_NAME, allowedKeys: 'a Kubernetes label key', maxValueLength: 63 });
  for (const [key, value] of Object.entries(labels)) {
    if (!LABEL_VALUE.test(value)) reader.report(`labels.${key}`, `must be a Kubernetes label value, got ${JSON.stringify(value)}`);
  }
  return labels;
}
