-- schedule.missed, builder.session.ready and credits.low (issue 22): the filter values of events that
-- are not about a Run, and the organization's low-credits threshold (null: the configured default).
ALTER TABLE "WebhookEvent" ADD COLUMN "agentId" INTEGER, ADD COLUMN "spaceId" INTEGER;
ALTER TABLE "Organization" ADD COLUMN "creditsLowThreshold" DECIMAL(20,6);
ALTER TABLE "Organization" ADD CONSTRAINT "Organization_creditsLowThreshold_nonnegative" CHECK ("creditsLowThreshold" >= 0);
