-- sapfor project database: migration step v2 -> v3 (see database/SCHEMA.md).
-- The variants an expert considered and rejected for an analysis, each with every reason.
CREATE TABLE rejected_variants (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    expert      TEXT NOT NULL,
    name        TEXT NOT NULL,
    reasons     TEXT NOT NULL,             -- JSON [{at: {file, unit} | null, line | null, text}]
    UNIQUE (analysis_id, ord)
);
