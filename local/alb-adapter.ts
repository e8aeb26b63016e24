// local/start/pipeline.ts's import path for the ALB adapter, which lives in
// extender-host/alb-adapter.ts.
export * from './extender-host/alb-adapter';
