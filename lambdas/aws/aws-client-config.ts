import type { Env } from '../env';
import { ConfigError, envOptionalString } from '../env';

/** What every SDK client of ours is built with. */
export interface AwsClientConfig {
  readonly region: string;
  /** Set locally (moto_server) through AWS_ENDPOINT_URL; unset in AWS. */
  readonly endpoint?: string;
}

const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/**
 * Region from AWS_REGION (Lambda always sets it) or AWS_DEFAULT_REGION, and the
 * optional AWS_ENDPOINT_URL. Passing them explicitly, instead of letting each
 * client read process.env, lets tests and the local runner hand in their own env.
 */
export function awsClientConfigFromEnv(env: Env): AwsClientConfig {
  const variable = envOptionalString(env, 'AWS_REGION') !== undefined ? 'AWS_REGION' : 'AWS_DEFAULT_REGION';
  const region = envOptionalString(env, variable);
  if (region === undefined) throw new ConfigError('AWS_REGION', undefined, 'an AWS region such as us-east-1 (or set AWS_DEFAULT_REGION)');
  if (!REGION_PATTERN.test(region)) throw new ConfigError(variable, region, 'an AWS region such as us-east-1');
  const endpoint = envOptionalString(env, 'AWS_ENDPOINT_URL');
  if (endpoint !== undefined && !isHttpUrl(endpoint)) {
    throw new ConfigError('AWS_ENDPOINT_URL', endpoint, 'an http(s) URL such as http://127.0.0.1:5000');
  }
  return endpoint === undefined ? { region } : { region, endpoint };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
