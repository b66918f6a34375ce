// Creates S3_BUCKET on S3_ENDPOINT if it does not exist (used by scripts/s3-server.sh).
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';

const client = new S3Client({
  endpoint: process.env.S3_ENDPOINT,
  region: process.env.S3_REGION,
  forcePathStyle: true,
  credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY },
});
const Bucket = process.env.S3_BUCKET;
try {
  await client.send(new HeadBucketCommand({ Bucket }));
} catch {
  await client.send(new CreateBucketCommand({ Bucket }));
}
