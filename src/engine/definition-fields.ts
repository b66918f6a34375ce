// The schema of a definition's fields: locators (CSS, XPath, JSONPath), what to read, multiple values,
// nested fields and transform steps. Nesting is spelled out level by level (at most MAX_FIELD_DEPTH), so
// the schema needs no `$id`/`$ref` recursion (see definition.ts on why nested schemas carry no `$id`).
import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const MAX_FIELD_DEPTH = 3;
/** Longest regular expression or replace pattern a step may hold. */
export const MAX_PATTERN_LENGTH = 1000;

const SimpleStepSchema = Type.Union(
  [
    Type.Literal('trim'),
    Type.Literal('number'),
    Type.Literal('absoluteUrl'),
    Type.Literal('lowercase'),
    Type.Literal('uppercase'),
  ],
  {
    description:
      "trim: strip surrounding whitespace; number: first number in the text ('$1,234.50' -> 1234.5); " +
      'absoluteUrl: resolve against the page URL (or its <base href>); lowercase, uppercase.',
  },
);

const Flags = Type.Optional(
  Type.String({ pattern: '^[ims]*$', description: 'i: ignore case, m: ^ and $ at line ends, s: . matches newlines.' }),
);
const Pattern = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH, description: `${description} (RE2 syntax)` });

export const RegexStepSchema = Type.Object(
  {
    regex: Pattern('The first match of this pattern; null when none'),
    group: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1 })], {
        description: 'Group number or name to keep (default 0: the whole match).',
      }),
    ),
    flags: Flags,
  },
  { title: 'RegexStep', additionalProperties: false, example: { regex: 'by (\\w+ \\w+)', group: 1 } },
);

export const ReplaceStepSchema = Type.Object(
  {
    replace: Pattern('Every match of this pattern is replaced'),
    with: Type.String({ description: 'Replacement text; $1 or ${name} insert a group.' }),
    flags: Flags,
  },
  { title: 'ReplaceStep', additionalProperties: false, example: { replace: '\\s+', with: ' ' } },
);

export const SplitStepSchema = Type.Object(
  { split: Type.String({ minLength: 1, description: 'Separator text; items are trimmed, empty ones dropped.' }) },
  { title: 'SplitStep', additionalProperties: false, example: { split: ',' } },
);

export const DateStepSchema = Type.Object(
  {
    date: Type.String({ minLength: 1, maxLength: 100, description: 'Luxon format the text is written in.' }),
    zone: Type.Optional(Type.String({ minLength: 1, description: 'IANA time zone of the text (default UTC).' })),
    locale: Type.Optional(Type.String({ minLength: 1, description: 'BCP 47 locale of month and day names.' })),
  },
  {
    title: 'DateStep',
    additionalProperties: false,
    description: 'Parses the text to ISO 8601; a text that does not parse becomes null (counted in the evidence).',
    example: { date: 'dd.MM.yyyy', zone: 'Europe/Berlin' },
  },
);

export const DefaultStepSchema = Type.Object(
  { default: Type.String({ description: 'Used when the value is null or empty.' }) },
  { title: 'DefaultStep', additionalProperties: false, example: { default: 'n/a' } },
);

export const FieldStepSchema = Type.Union([
  SimpleStepSchema,
  RegexStepSchema,
  ReplaceStepSchema,
  SplitStepSchema,
  DateStepSchema,
  DefaultStepSchema,
]);
export type FieldStep = Static<typeof FieldStepSchema>;

export const FieldTransformSchema = Type.Union([FieldStepSchema, Type.Array(FieldStepSchema, { minItems: 1 })], {
  description: 'One step or an ordered array of steps, each applied to the previous result.',
  examples: ['trim', ['trim', { regex: '\\d+([.,]\\d+)?' }, 'number']],
});

function fieldProperties() {
  return {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    selector: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'CSS selector inside the matched element; omitted (and no xpath): the element itself.',
      }),
    ),
    xpath: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'XPath 1.0 relative to the matched element (// paths: from the document); text and attribute nodes give their value.',
        examples: ['./text()[2]', './/a/@href', "normalize-space(.//dt[.='Author']/following-sibling::dd[1])"],
      }),
    ),
    jsonPath: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'JSON pages: JSONPath relative to the record.',
        examples: ['$.price.amount'],
      }),
    ),
    attribute: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "'text' (default), 'ownText' (the element's own text nodes, whitespace collapsed), 'html' (inner HTML) " +
          'or the name of an attribute.',
        examples: ['ownText', 'href'],
      }),
    ),
    multiple: Type.Optional(
      Type.Boolean({
        description: 'Every match, as an array (empty when none); required then means non-empty.',
        examples: [true],
      }),
    ),
    transform: Type.Optional(FieldTransformSchema),
    required: Type.Optional(Type.Boolean({ description: 'Records without a value for this field are dropped.' })),
  };
}

const NESTED = 'Fields of each match: the value is an object (an array of objects with multiple).';
const nestedFields = <T extends TSchema>(inner: T) => ({
  fields: Type.Optional(
    Type.Array(inner, {
      minItems: 1,
      description: `${NESTED} At most ${MAX_FIELD_DEPTH} levels.`,
      examples: [
        [
          { name: 'key', selector: 'th' },
          { name: 'value', selector: 'td' },
        ],
      ],
    }),
  ),
});

const Level3FieldSchema = Type.Object(fieldProperties(), { title: 'AgentField3', additionalProperties: false });
const Level2FieldSchema = Type.Object(
  { ...fieldProperties(), ...nestedFields(Level3FieldSchema) },
  {
    title: 'AgentField2',
    additionalProperties: false,
    description: NESTED,
  },
);
export const AgentFieldSchema = Type.Object(
  { ...fieldProperties(), ...nestedFields(Level2FieldSchema) },
  {
    title: 'AgentField',
    additionalProperties: false,
    examples: [
      { name: 'author', selector: '.byline', transform: [{ regex: 'by ([^,]+)', group: 1 }, 'trim'] },
      { name: 'tags', selector: '.tag', multiple: true, transform: 'trim' },
      {
        name: 'offers',
        selector: '.offer',
        multiple: true,
        fields: [{ name: 'price', selector: '.price', transform: 'number' }],
      },
    ],
  },
);

/** A field at any level (the schema's three levels share this shape). */
export interface FieldSpec {
  name: string;
  selector?: string;
  xpath?: string;
  jsonPath?: string;
  attribute?: string;
  multiple?: boolean;
  transform?: FieldStep | FieldStep[];
  required?: boolean;
  fields?: FieldSpec[];
}
