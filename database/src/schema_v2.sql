-- sapfor project database: migration step v1 -> v2 (see database/SCHEMA.md).
-- Adds the measured runs of generated programs, a free-text note on user refinements and
-- the procedures' mod/ref summaries.
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    artifact_id   INTEGER NOT NULL REFERENCES artifacts(id) ON DELETE CASCADE,
    command       TEXT NOT NULL,
    processes     INTEGER NOT NULL,
    threads       INTEGER NOT NULL,
    wall_seconds  REAL,                    -- NULL stands for NaN
    loops         TEXT NOT NULL,           -- JSON per-loop measurements
    communication TEXT NOT NULL,           -- JSON communication measurements
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX runs_artifact ON runs(artifact_id);

ALTER TABLE overrides ADD COLUMN note TEXT;

-- The mod/ref summary of each procedure (JSON, see records::UnitRecord::summary).
ALTER TABLE units ADD COLUMN summary TEXT;
