export * from './control-plane/control-plane';
