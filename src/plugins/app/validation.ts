// Request validation: JSON bodies are validated strictly (a string is not an integer, 0 is not
// null), while path and query values, which are always text, are coerced to their types.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: Options['coerceTypes'], schemas: TSchema[]): Ajv {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, coerceTypes, allErrors: false, strict: false });
  addFormats(ajv);
  ajv.addKeyword('x-aliases');
  for (const s of schemas) ajv.addSchema(s);
  return ajv;
}

export function installValidators(app: FastifyInstance, schemas: TSchema[]): void {
  const bodyAjv = makeAjv(false, schemas);
  const textAjv = makeAjv('array', schemas);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
}
