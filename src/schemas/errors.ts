import { Type } from '@sinclair/typebox';
import { ErrorCodes } from '../lib/errors.js';

export const ErrorCodeSchema = Type.Union(
  Object.values(ErrorCodes).map((c) => Type.Literal(c)),
  {
    $id: 'ErrorCode',
    description:
      'Values of `errorCode` in BadRequestError and ProblemDetails. Clients switch on it instead of parsing messages. See docs/errors.md for when each is returned.',
  },
);
