-- Reply pushes (API 1.2): a subscription listens to an area, or to replies to its device's notes.
ALTER TABLE push_subscriptions
    ALTER COLUMN area DROP NOT NULL,
    ADD COLUMN replies boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT push_subscriptions_area_or_replies CHECK ((area IS NULL) = replies);
CREATE INDEX push_subscriptions_replies_idx ON push_subscriptions (device_hash) WHERE replies;

-- One push per subscription, note and reply: a note's replies are pushed apart.
ALTER TABLE deliveries ADD COLUMN reply_id bigint;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_subscription_id_post_id_event_key;
CREATE UNIQUE INDEX deliveries_subscription_once ON deliveries (subscription_id, post_id, event, coalesce(reply_id, 0))
    WHERE subscription_id IS NOT NULL;

-- Every instance keeps the targets' interests in memory and follows this log of which target
-- was added or removed (the rows themselves say what it is now). Old entries are pruned.
CREATE TABLE outbox_target_changes (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id      bigint,
    subscription_id bigint,
    at              timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX outbox_target_changes_at_idx ON outbox_target_changes (at);

CREATE FUNCTION note_webhook_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO outbox_target_changes (webhook_id) VALUES (coalesce(NEW.id, OLD.id));
    RETURN NULL;
END $$;

CREATE FUNCTION note_subscription_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO outbox_target_changes (subscription_id) VALUES (coalesce(NEW.id, OLD.id));
    RETURN NULL;
END $$;

CREATE TRIGGER webhooks_noted AFTER INSERT OR UPDATE OR DELETE ON webhooks FOR EACH ROW EXECUTE FUNCTION note_webhook_change();
CREATE TRIGGER push_subscriptions_noted AFTER INSERT OR UPDATE OR DELETE ON push_subscriptions FOR EACH ROW EXECUTE FUNCTION note_subscription_change();
