/**
 * Renders a CloudFormation string value (a literal or Fn::Join of literals
 * and references) to text, each reference replaced by `<ref:LogicalId>`.
 */
export function renderCfnString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if ('Fn::Join' in record) {
      const [separator, parts] = record['Fn::Join'] as [string, unknown[]];
      return parts.map(renderCfnString).join(separator);
    }
    if ('Ref' in record) return `<ref:${String(record.Ref)}>`;
    if ('Fn::GetAtt' in record) return `<ref:${(record['Fn::GetAtt'] as string[]).join('.')}>`;
  }
  throw new Error(`cannot render ${JSON.stringify(value)} as a string`);
}
