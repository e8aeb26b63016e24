import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/**
 * The RFC 6902 operations our writes use. `test` makes the whole patch fail
 * (nothing applied) when the object is no longer what we read, which is how a
 * list entry is removed without losing a concurrent change to the same list.
 */
export type JsonPatchOperation =
  | { readonly op: 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** Request options that send the body as a JSON Patch. */
export const JSON_PATCH_OPTIONS = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
