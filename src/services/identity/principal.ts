// Who is calling: resolved once per request from an API key or a bearer token.
export interface Principal {
  userId: number;
  organizationId: number;
  role: 'admin' | 'member';
  email: string;
  name: string;
  via: 'apikey' | 'bearer';
  apiKeyId?: number;
}
