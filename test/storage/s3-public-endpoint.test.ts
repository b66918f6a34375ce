// S3_PUBLIC_ENDPOINT against the real S3-compatible server: download URLs are signed for the endpoint
// clients reach (here a forwarder on another port, as a published port or a gateway would be), while
// the service talks to its own. In compose the service's endpoint is `http://s3:8333`, which no user's
// machine resolves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/storage/index.js';
import { testS3Options } from '../helpers/s3-server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const internal = testS3Options();
const body = 'title,price\r\nProduct 1,9.99\r\n';
const headers = { contentType: 'text/csv; charset=utf-8', contentDisposition: 'attachment; filename="data.csv"' };
let gateway: TcpProxy;
let publicEndpoint: string;
let signed: S3Storage;
const plain = new S3Storage(internal);
beforeAll(async () => {
  const target = new URL(internal.endpoint);
  gateway = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
  publicEndpoint = `http://127.0.0.1:${gateway.port}`;
  signed = new S3Storage({ ...internal, publicEndpoint });
});
afterAll(async () => {
  await plain.delete('runs/');
  await gateway?.close();
});

describe('S3_PUBLIC_ENDPOINT', () => {
  it('signs download URLs for the public endpoint; they return the exact bytes', async () => {
    expect(publicEndpoint).not.toBe(internal.endpoint);
    await signed.put(
      'runs/1/data.csv',
      (async function* () {
        yield body;
      })(),
    );
    const url = await signed.presignGet('runs/1/data.csv', headers);
    expect(url.startsWith(`${publicEndpoint}/${internal.bucket}/${internal.prefix}/runs/1/data.csv?`)).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(headers.contentType);
    expect(res.headers.get('content-disposition')).toBe(headers.contentDisposition);
    expect(await res.text()).toBe(body);
  });

  it('a signature covers the host: the same URL asked of the internal endpoint is refused', async () => {
    const url = await signed.presignGet('runs/1/data.csv', headers);
    const res = await fetch(url.replace(publicEndpoint, internal.endpoint));
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('SignatureDoesNotMatch');
  });

  it('without it, URLs are signed for S3_ENDPOINT', async () => {
    const url = await plain.presignGet('runs/1/data.csv', headers);
    expect(url.startsWith(`${internal.endpoint}/${internal.bucket}/`)).toBe(true);
    expect(await (await fetch(url)).text()).toBe(body);
  });
});
