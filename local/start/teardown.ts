// local/start/pipeline.ts's import path for the stack of stops, which lives in
// local/common/teardown.ts.
export * from '../common/teardown';
