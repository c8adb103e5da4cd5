-- sapfor project database, schema version 1 (see database/SCHEMA.md).
-- JSON columns hold compact serde_json text. Every child table cascades on delete.
-- Ids shown to users or kept by other components (analyses, overrides, schemes, artifacts,
-- runs) are AUTOINCREMENT: a deleted id is never reused.

-- One stored analysis: its input key, the tool that made it and the rendered JSON report.
CREATE TABLE analyses (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    seq          INTEGER NOT NULL UNIQUE,  -- recency; the current analysis has the greatest seq
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    tool_version TEXT NOT NULL,
    key_digest   TEXT NOT NULL,            -- sha256 of key_files + key_options
    key_files    TEXT NOT NULL,            -- JSON [[relative path, content hash], ...]
    key_options  TEXT NOT NULL,
    report       TEXT NOT NULL             -- JSON report (docs/analysis.md) as rendered
);
CREATE INDEX analyses_key ON analyses(key_digest);

-- Every file an analysis read (top-level and INCLUDEd), with its text.
CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    path        TEXT NOT NULL,             -- relative to the project root, '/' separators
    hash        TEXT NOT NULL,             -- content_hash of the file's bytes
    form        TEXT NOT NULL,             -- fixed | free
    included    INTEGER NOT NULL,          -- 1 when brought in by INCLUDE
    text        TEXT NOT NULL,
    UNIQUE (analysis_id, ord)
);
CREATE INDEX files_path ON files(path);

-- Program units.
CREATE TABLE units (
    id          INTEGER PRIMARY KEY,
    analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line        INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    UNIQUE (analysis_id, ord)
);
CREATE INDEX units_name ON units(name);
CREATE INDEX units_file ON units(file_id);

-- DO loops with their verdicts. file_id is the unit's file: loops are looked up by (file, line).
CREATE TABLE loops (
    id            INTEGER PRIMARY KEY,
    unit_id       INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    file_id       INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ord           INTEGER NOT NULL,
    line          INTEGER NOT NULL,
    end_line      INTEGER NOT NULL,
    var           TEXT NOT NULL,
    depth         INTEGER NOT NULL,
    lower         INTEGER,
    upper         INTEGER,
    step          INTEGER,
    iterations    INTEGER,
    verdict       TEXT NOT NULL,
    private       TEXT NOT NULL,           -- JSON ["t", ...]
    reductions    TEXT NOT NULL,           -- JSON [{"op":"max","var":"eps"}, ...]
    overridden_by TEXT NOT NULL,           -- JSON ["loop at f:3 is parallel", ...]
    UNIQUE (unit_id, ord)
);
CREATE INDEX loops_at ON loops(file_id, line);

CREATE TABLE dependences (
    id          INTEGER PRIMARY KEY,
    loop_id     INTEGER NOT NULL REFERENCES loops(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    array       TEXT NOT NULL,
    kind        TEXT NOT NULL,             -- flow | anti | output
    distance    TEXT NOT NULL,             -- JSON [1, 0, null]
    source_line INTEGER NOT NULL,
    sink_line   INTEGER NOT NULL,
    UNIQUE (loop_id, ord)
);
CREATE INDEX dependences_array ON dependences(array);

CREATE TABLE blockers (
    id      INTEGER PRIMARY KEY,
    loop_id INTEGER NOT NULL REFERENCES loops(id) ON DELETE CASCADE,
    ord     INTEGER NOT NULL,
    code    TEXT NOT NULL,
    message TEXT NOT NULL,
    line    INTEGER NOT NULL,
    UNIQUE (loop_id, ord)
);

-- Control-flow graph: blocks (num is 1-based, as in the dumps), their lines, the variables and
-- array sections they read and write, and the edges between them.
CREATE TABLE blocks (
    id      INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    num     INTEGER NOT NULL,
    UNIQUE (unit_id, num)
);

CREATE TABLE block_lines (
    block_id INTEGER NOT NULL REFERENCES blocks(id) ON DELETE CASCADE,
    line     INTEGER NOT NULL,
    PRIMARY KEY (block_id, line)
) WITHOUT ROWID;
CREATE INDEX block_lines_line ON block_lines(line);

CREATE TABLE block_vars (
    block_id INTEGER NOT NULL REFERENCES blocks(id) ON DELETE CASCADE,
    access   TEXT NOT NULL CHECK (access IN ('read', 'write')),
    name     TEXT NOT NULL,
    rank     INTEGER NOT NULL,
    section  TEXT NOT NULL,                -- JSON SectionSet {"rank":..,"parts":[..]}
    display  TEXT NOT NULL,                -- e.g. A(2:1999,*) with the declared bounds
    PRIMARY KEY (block_id, access, name)
) WITHOUT ROWID;
CREATE INDEX block_vars_name ON block_vars(name);

CREATE TABLE edges (
    id         INTEGER PRIMARY KEY,
    from_block INTEGER NOT NULL REFERENCES blocks(id) ON DELETE CASCADE,
    ord        INTEGER NOT NULL,
    to_block   INTEGER NOT NULL REFERENCES blocks(id) ON DELETE CASCADE,
    at         INTEGER NOT NULL,           -- items of the source block executed before leaving
    kind       TEXT NOT NULL,              -- fallthrough | jump | branch | loop_exit | back
    UNIQUE (from_block, ord)
);
CREATE INDEX edges_to ON edges(to_block);

-- Symbols (scalars and arrays) of each unit.
CREATE TABLE symbols (
    id           INTEGER PRIMARY KEY,
    unit_id      INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    ord          INTEGER NOT NULL,
    name         TEXT NOT NULL,
    ty           TEXT NOT NULL,            -- integer, real*8, double precision, ...
    rank         INTEGER NOT NULL,         -- 0 for scalars
    bounds       TEXT NOT NULL,            -- JSON [[1,2000], null, ...]
    common_block TEXT,                     -- COMMON block ('' = blank COMMON)
    common_pos   INTEGER,
    dummy        INTEGER,                  -- position in the dummy argument list
    param        TEXT,                     -- PARAMETER value
    aliases      TEXT NOT NULL,            -- JSON names sharing storage (EQUIVALENCE)
    UNIQUE (unit_id, ord)
);
CREATE INDEX symbols_name ON symbols(name);

CREATE TABLE commons (
    id      INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    ord     INTEGER NOT NULL,
    block   TEXT NOT NULL,
    UNIQUE (unit_id, ord)
);
CREATE INDEX commons_block ON commons(block);

CREATE TABLE common_members (
    common_id INTEGER NOT NULL REFERENCES commons(id) ON DELETE CASCADE,
    ord       INTEGER NOT NULL,
    name      TEXT NOT NULL,
    offset    INTEGER,                     -- byte offset when known
    bytes     INTEGER,
    PRIMARY KEY (common_id, ord)
) WITHOUT ROWID;

CREATE TABLE calls (
    id      INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    ord     INTEGER NOT NULL,
    callee  TEXT NOT NULL,
    line    INTEGER NOT NULL,
    UNIQUE (unit_id, ord)
);
CREATE INDEX calls_callee ON calls(callee);

CREATE TABLE diagnostics (
    id          INTEGER PRIMARY KEY,
    analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    code        TEXT,
    severity    TEXT,
    message     TEXT,
    file        TEXT,
    line        INTEGER,
    col         INTEGER,
    json        TEXT NOT NULL,             -- the diagnostic as in the JSON report
    UNIQUE (analysis_id, ord)
);

-- User refinements (analyzer::overrides::Override), independent of any analysis.
CREATE TABLE overrides (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,              -- parallel | sequential | private | ... (Override::kind)
    file       TEXT,                       -- loop reference, for loop refinements
    line       INTEGER,
    body       TEXT NOT NULL UNIQUE,       -- the Override as JSON (tagged by "kind")
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- Parallelization schemes built by the experts for one analysis, with their estimates.
CREATE TABLE schemes (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    analysis_id        INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    ord                INTEGER NOT NULL,
    expert             TEXT NOT NULL,
    name               TEXT NOT NULL,
    distribution       TEXT NOT NULL,      -- JSON
    alignment          TEXT NOT NULL,      -- JSON (authoritative; rows below are derived)
    loops              TEXT NOT NULL,      -- JSON
    regions            TEXT NOT NULL,      -- JSON
    machine            TEXT NOT NULL,      -- JSON
    cost_computation   REAL,               -- seconds; NULL stands for NaN
    cost_communication REAL,
    cost_transfers     REAL,
    total              REAL,
    chosen             INTEGER NOT NULL,
    UNIQUE (analysis_id, ord)
);

-- One row per alignment rule of a scheme (derived from schemes.alignment for queries).
CREATE TABLE alignments (
    id        INTEGER PRIMARY KEY,
    scheme_id INTEGER NOT NULL REFERENCES schemes(id) ON DELETE CASCADE,
    ord       INTEGER NOT NULL,
    array     TEXT,                        -- the aligned array, when the rule names one
    rule      TEXT NOT NULL,               -- JSON
    UNIQUE (scheme_id, ord)
);
CREATE INDEX alignments_array ON alignments(array);

-- Generated programs (and other text artifacts) of a scheme.
CREATE TABLE artifacts (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    scheme_id  INTEGER NOT NULL REFERENCES schemes(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    path       TEXT,
    text       TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX artifacts_scheme ON artifacts(scheme_id);
