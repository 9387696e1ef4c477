-- "My notes": a device's notes and replies, newest first, read by the keyed hash of its key.
CREATE INDEX posts_device_idx ON posts (device_hash, created_at DESC, id DESC) WHERE device_hash IS NOT NULL;
CREATE INDEX replies_device_idx ON replies (device_hash, created_at DESC, id DESC) WHERE device_hash IS NOT NULL;
