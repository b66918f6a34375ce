import { Type } from '@sinclair/typebox';
import { DateTime } from './common.js';

export const ProxyPoolSchema = Type.Object(
  {
    id: Type.Integer(),
    organizationId: Type.Integer(),
    name: Type.String(),
    proxyCount: Type.Integer({
      description: 'How many proxies the pool holds. The proxy URLs (which may carry credentials) are never returned.',
    }),
    created: DateTime,
    updated: DateTime,
  },
  { $id: 'ProxyPool' },
);

export const CreateProxyPoolBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    proxies: Type.Array(Type.String({ minLength: 1, maxLength: 2000, description: 'http://user:password@host:port' }), {
      minItems: 1,
      maxItems: 1000,
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Residential EU',
        proxies: ['http://user:secret@proxy1.example.com:8080', 'http://proxy2.example.com:3128'],
      },
    ],
  },
);
