/** Follows `continue` tokens until the API server has no more pages. */
export async function* paginate<T>(
  fetchPage: (page: { _continue?: string }) => Promise<{ items: T[]; metadata?: { _continue?: string } }>,
): AsyncGenerator<readonly T[]> {
  let continueToken: string | undefined;
  do {
    const page = await fetchPage(continueToken ? { _continue: continueToken } : {});
    yield page.items;
    continueToken = page.metadata?._continue || undefined;
  } while (continueToken);
}

/** Every item of every page, in order. */
export async function collectPages<T>(pages: AsyncIterable<readonly T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}
