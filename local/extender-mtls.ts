// local/start/pipeline.ts's import path for the extender's mutual-TLS
// material, which lives in extender-host/extender-mtls.ts.
export * from './extender-host/extender-mtls';
