// local/start/pipeline.ts's and local/start/function-environment.ts's import
// path for moto, which lives in aws/moto.ts.
export * from './aws/moto';
