-- The outbox's NOTIFY only when events were inserted. A statement trigger fires for every INSERT
-- statement, zero rows included, and a Run's status change inserts its event through a statement that
-- inserts nothing when the organization has no webhook: every Run then woke every worker's relay for
-- nothing (2 statements per worker per Run, measured by `bench -- runs`). The transition table tells.
CREATE OR REPLACE FUNCTION "webhook_outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_events) THEN
    PERFORM pg_notify('webhook_outbox', '');
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER "WebhookEvent_notify" ON "WebhookEvent";
CREATE TRIGGER "WebhookEvent_notify" AFTER INSERT ON "WebhookEvent"
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_outbox_notify"();
