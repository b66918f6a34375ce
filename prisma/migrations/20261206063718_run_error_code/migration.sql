-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "errorCode" TEXT,
ADD COLUMN     "errorParams" JSONB;

-- AlterTable
ALTER TABLE "WebhookAttempt" ADD COLUMN     "errorCode" TEXT;
