import { z } from 'zod';

/** How an app may render the question. Apps that know no better show a text field. */
export const InputKind = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), placeholder: z.string().optional(), default: z.string().optional() }),
  z.strictObject({ kind: z.literal('confirm'), default: z.boolean().optional() }),
  z.strictObject({
    kind: z.literal('choice'),
    options: z
      .array(z.union([z.string(), z.strictObject({ value: z.string(), label: z.string() })]))
      .min(1, 'a choice needs at least one option'),
    default: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal('json'),
    /** A JSON Schema the answer must satisfy (checked by the app; the engine checks it is JSON). */
    schema: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type InputKind = z.infer<typeof InputKind>;
