import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/** A metadata map patch: a value sets the key, null removes it (RFC 7386 JSON merge patch). */
export type MetadataPatch = Readonly<Record<string, string | null>>;

/** Request options that send the body as a JSON merge patch (client-node defaults to JSON Patch). */
export const MERGE_PATCH_OPTIONS = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Patches of ours are attributed to this field manager in managedFields. */
export const FIELD_MANAGER = 'gpu-scheduling';

