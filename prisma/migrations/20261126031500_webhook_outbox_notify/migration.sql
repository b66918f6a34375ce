-- The webhook outbox wakes the relay when an event commits (issue 22: 95% of first attempts within 2 s
-- of the commit). NOTIFY inside a transaction is delivered at its commit and not at all on rollback, the
-- outbox's own semantics; one notification per statement (and PostgreSQL folds equal ones per
-- transaction). The relay's 500 ms tick stays as the fallback when no worker is listening.
CREATE FUNCTION "webhook_outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_outbox', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "WebhookEvent_notify" AFTER INSERT ON "WebhookEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_outbox_notify"();
