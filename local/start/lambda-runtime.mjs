// Worker-thread bootstrap of a local Lambda "container": the worker does not
// inherit tsx's loader from the main thread, so register it here, then load
// the TypeScript runtime loop (which imports the real handler module).
import { register } from 'tsx/esm/api';

register();
await import('./lambda-worker.ts');
