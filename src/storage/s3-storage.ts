// Run files in an S3-compatible object store (AWS SDK v3). Same contract as LocalStorage: a put is
// all or nothing (a failed multipart upload is aborted, so no object and no parts stay behind).
import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  countBytes,
  keySegments,
  StorageNotFoundError,
  type Storage,
  type StoredObject,
  type StorageWriter,
} from './storage.js';
import { shippedWriter } from './storage-retry.js';

export interface S3StorageOptions {
  /** Empty: AWS itself. */
  endpoint: string;
  /**
   * The endpoint clients reach the store at, used only to sign the download URLs handed to them (the
   * service's own endpoint may be a name only its network resolves, as `http://s3:8333` in compose).
   * Equal to `endpoint` unless set apart.
   */
  publicEndpoint: string;
  region: string;
  bucket: string;
  /** Prepended to every key (`tenant-a/` ...); empty for none. */
  prefix: string;
  /** Both empty: the SDK's default credential chain (environment, profile, instance role). */
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** How long a pre-signed download URL works. */
  presignSeconds: number;
}

/** Multipart part size and parts in flight: an upload holds at most PART_BYTES * (QUEUE + 1) in memory. */
export const S3_PART_BYTES = 8 * 1024 * 1024;
export const S3_UPLOAD_QUEUE = 2;

const notFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

export class S3Storage implements Storage {
  readonly client: S3Client;
  /** Signs download URLs for clients: `client` itself unless the public endpoint differs. */
  private readonly presignClient: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(private readonly options: S3StorageOptions) {
    const credentials =
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined;
    const clientFor = (endpoint: string) =>
      new S3Client({
        endpoint: endpoint || undefined,
        region: options.region,
        forcePathStyle: options.forcePathStyle,
        credentials,
        // S3-compatible servers (Ceph RGW 16, older MinIO, SeaweedFS...) do not all know the CRC32
        // checksum headers SDK v3 sends by default since 2025: send and check them only when required.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 3,
      });
    this.client = clientFor(options.endpoint);
    // A signature covers the host, so a URL for clients is signed for the host they will ask.
    this.presignClient = options.publicEndpoint === options.endpoint ? this.client : clientFor(options.publicEndpoint);
    this.bucket = options.bucket;
    this.prefix = options.prefix.replace(/^\/+|\/+$/g, '');
  }

  private objectKey(key: string, options: { allowTrailingSlash?: boolean } = {}): string {
    const relative = keySegments(key, options).join('/');
    return this.prefix ? `${this.prefix}/${relative}` : relative;
  }

  async put(key: string, stream: Readable | AsyncIterable<string | Buffer>): Promise<{ size: number }> {
    const counter = { size: 0 };
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.objectKey(key), Body: Readable.from(countBytes(stream, counter)) },
      partSize: S3_PART_BYTES,
      queueSize: S3_UPLOAD_QUEUE,
      // On failure the SDK aborts the multipart upload: no parts are left to pay for.
      leavePartsOnError: false,
    });
    await upload.done();
    return { size: counter.size };
  }

  async get(key: string): Promise<Readable> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return out.Body as Readable;
    } catch (err) {
      if (notFound(err)) throw new StorageNotFoundError(key);
      throw err;
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { size: Number(out.ContentLength ?? 0) };
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  /** Every object key under a folder-like prefix (`a/b/`), page by page. */
  private async *keysUnder(prefix: string): AsyncGenerator<string[]> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      yield (page.Contents ?? []).map((o) => o.Key as string);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(keyOrPrefix: string): Promise<void> {
    const base = this.objectKey(keyOrPrefix, { allowTrailingSlash: true }).replace(/\/$/, '');
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: base }));
    for await (const keys of this.keysUnder(`${base}/`)) {
      if (keys.length === 0) continue;
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }),
      );
    }
  }

  async list(prefix: string): Promise<string[]> {
    const base = `${this.objectKey(prefix, { allowTrailingSlash: true }).replace(/\/$/, '')}/`;
    const names = new Set<string>();
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: base, Delimiter: '/', ContinuationToken: token }),
      );
      for (const p of page.CommonPrefixes ?? []) names.add((p.Prefix as string).slice(base.length).replace(/\/$/, ''));
      for (const o of page.Contents ?? []) names.add((o.Key as string).slice(base.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return [...names].filter((n) => n !== '');
  }

  /** A key of the store without this instance's prefix. */
  private relativeKey(objectKey: string): string {
    return this.prefix ? objectKey.slice(this.prefix.length + 1) : objectKey;
  }

  async *walk(prefix: string): AsyncGenerator<StoredObject[]> {
    const base = `${this.objectKey(prefix, { allowTrailingSlash: true }).replace(/\/$/, '')}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: base, ContinuationToken: token }),
      );
      yield (page.Contents ?? []).map((o) => ({ key: this.relativeKey(o.Key as string), size: Number(o.Size ?? 0) }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Multipart uploads under a prefix that were neither completed nor aborted. */
  private async uploadsUnder(prefix: string): Promise<Array<{ Key: string; UploadId: string }>> {
    const base = `${this.objectKey(prefix, { allowTrailingSlash: true }).replace(/\/$/, '')}/`;
    const out: Array<{ Key: string; UploadId: string }> = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.bucket,
          Prefix: base,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const u of page.Uploads ?? []) out.push({ Key: u.Key as string, UploadId: u.UploadId as string });
      if (!page.IsTruncated) return out;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  }

  async listIncomplete(prefix: string): Promise<string[]> {
    return (await this.uploadsUnder(prefix)).map((u) => this.relativeKey(u.Key));
  }

  async discardIncomplete(prefix: string): Promise<number> {
    const uploads = await this.uploadsUnder(prefix);
    for (const u of uploads) await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, ...u }));
    return uploads.length;
  }

  /** Objects cannot be appended to: read, then replace. Only used once nothing else writes the key. */
  async append(key: string, text: string): Promise<void> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of await this.get(key)) chunks.push(chunk as Buffer);
    } catch (err) {
      if (!(err instanceof StorageNotFoundError)) throw err;
    }
    chunks.push(Buffer.from(text, 'utf8'));
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Body: Buffer.concat(chunks) }),
    );
  }

  /** A log, written to a local file and shipped to the store while it grows (`shippedWriter`). */
  openWriter(key: string): StorageWriter {
    return shippedWriter(this, key);
  }

  async removeAbandoned(): Promise<number> {
    return removeAbandonedLogTemps(os.tmpdir());
  }

  async presignGet(key: string, headers: { contentType: string; contentDisposition: string }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentType: headers.contentType,
      ResponseContentDisposition: headers.contentDisposition,
    });
    return getSignedUrl(this.presignClient, command, { expiresIn: this.options.presignSeconds });
  }

  async probe(): Promise<void> {
    const key = this.objectKey(`_probe/${os.hostname()}-${process.pid}`);
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: 'ok' }));
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}

const LOG_TEMP = /^cxs-log-(\d+)-[0-9a-f]{16}$/;

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the S3 log temporary files in `dir` whose process is gone (killed before it could); how many. */
export async function removeAbandonedLogTemps(dir: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number(LOG_TEMP.exec(name)?.[1]);
    if (!pid || pid === process.pid || processExists(pid)) continue;
    await rm(path.join(dir, name), { force: true });
    removed += 1;
  }
  return removed;
}
