-- 0018_attempt_cancel: as SQLite's 0018 ('fail', 'requeue' or '').
ALTER TABLE attempts ADD COLUMN cancel TEXT NOT NULL DEFAULT '';
