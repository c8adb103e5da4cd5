//! The project database: every fact, scheme and generated program as a SQLite artifact. The only crate that knows SQL.
//!
//! One file (conventionally `sapfor.db`) per project; its directory is the project root and
//! every stored path is relative to it. The schema is documented in `database/SCHEMA.md`.
//! A file is checked before anything is written to it: a corrupt file, another application's
//! database or one written by a newer sapfor is refused and left byte-identical. Connections
//! use WAL mode (readers never block the writer nor see half a write), a 5 s busy timeout and
//! foreign keys. Every store is one transaction.

mod paths;
pub mod records;
mod schema;
mod store;

pub use records::{
    content_hash, AnalysisKey, AnalysisRecord, ArtifactRecord, BlockRecord, BlockView,
    BlockerRecord, CommonRecord, DependenceRecord, EdgeRecord, FileRecord, LoopDetail, LoopRecord,
    ReductionRecord, RejectedRecord, RunRecord, SchemeRecord, SymbolRecord, UnitRecord,
};
pub use schema::{MIGRATIONS, V1_DDL, V1_TO_V2, V2_TO_V3};

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Schema version written by this build (`PRAGMA user_version`).
pub const SCHEMA_VERSION: u32 = 3;
/// `PRAGMA application_id` marking a sapfor database ("SFDB").
pub const APPLICATION_ID: i32 = 0x5346_4442;
/// How long a connection waits for another one's lock before giving up with [`DbError::Busy`].
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(5000);
/// Recorded with every stored analysis.
pub const TOOL_VERSION: &str = concat!("sapfor ", env!("CARGO_PKG_VERSION"));

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

#[derive(thiserror::Error, Debug)]
pub enum DbError {
    #[error("{} is not a SQLite database ({detail})", path.display())]
    NotADatabase { path: PathBuf, detail: String },
    #[error("{} is a SQLite database of another application ({reason}); sapfor will not modify it", path.display())]
    Foreign { path: PathBuf, reason: String },
    #[error("{} was written by a newer sapfor (schema {found}); this sapfor supports up to {supported}", path.display())]
    TooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("{} is locked by another process (still busy after the timeout)", path.display())]
    Busy { path: PathBuf },
    #[error("{}: {detail}: the database and its directory ({dir}) must be writable, since SQLite keeps a journal beside the file; put the database elsewhere with --db, or run without one (--no-db)", path.display())]
    CannotWrite { path: PathBuf, detail: String, dir: String },
    #[error("{}: database error: {source}", path.display())]
    Sql {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is damaged ({detail}); restore it from a backup, or move it away and run `sapfor --auto` again to make a new one", path.display())]
    Damaged { path: PathBuf, detail: String },
    #[error("{}: {what} cannot be read ({detail}); the file was changed outside sapfor. {advice}", path.display())]
    BadValue {
        path: PathBuf,
        /// What holds the value: `column report`, `refinement #3`.
        what: String,
        detail: String,
        /// What to do about it.
        advice: String,
    },
    #[error("{0}")]
    NotFound(String),
}

/// Advice for an unreadable value of data sapfor derives from the sources (analyses,
/// schemes): a new analysis replaces it.
pub(crate) const REDERIVE: &str = "Run `sapfor --auto` (or `sapfor analyze`) on the program again to store a fresh analysis; if the error stays, restore the database from a backup or move it away";

/// Attach the database path to rusqlite errors, recognizing lock timeouts.
pub(crate) trait At<T> {
    fn at(self, path: &Path) -> Result<T, DbError>;
}

impl<T> At<T> for rusqlite::Result<T> {
    fn at(self, path: &Path) -> Result<T, DbError> {
        self.map_err(|e| sql_error(path, e))
    }
}

/// A JSON column that does not parse, with the column's name (`store::json_col`).
#[derive(Debug, thiserror::Error)]
#[error("column {column}: {error}")]
pub(crate) struct ColumnJson {
    pub(crate) column: String,
    pub(crate) error: serde_json::Error,
}

pub(crate) fn sql_error(path: &Path, e: rusqlite::Error) -> DbError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        match f.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                return DbError::Busy {
                    path: path.to_path_buf(),
                }
            }
            ErrorCode::CannotOpen | ErrorCode::ReadOnly => {
                let dir = match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.display().to_string(),
                    _ => ".".into(),
                };
                return DbError::CannotWrite {
                    path: path.to_path_buf(),
                    detail: e.to_string(),
                    dir,
                };
            }
            ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt => {
                return DbError::NotADatabase {
                    path: path.to_path_buf(),
                    detail: e.to_string(),
                }
            }
            _ => {}
        }
    }
    // a value of the wrong type, or JSON that does not parse (`json_col`): edited by hand
    // or by another program
    let bad = |column: String, detail: String| DbError::BadValue {
        path: path.to_path_buf(),
        what: format!("a stored value (column {column})"),
        detail,
        advice: REDERIVE.into(),
    };
    match e {
        rusqlite::Error::FromSqlConversionFailure(i, _, err) => match err.downcast::<ColumnJson>() {
            Ok(c) => bad(c.column, c.error.to_string()),
            Err(err) => bad(format!("#{i}"), err.to_string()),
        },
        rusqlite::Error::InvalidColumnType(_, name, ty) => bad(name, format!("{ty} where another type belongs")),
        rusqlite::Error::IntegralValueOutOfRange(i, v) => bad(format!("#{i}"), format!("{v} is out of range")),
        e => DbError::Sql {
            path: path.to_path_buf(),
            source: e,
        },
    }
}

/// An open project database (one connection). Open one per thread; SQLite and WAL mode make
/// concurrent readers and a writer (in threads or processes) safe.
pub struct Db {
    pub(crate) conn: Connection,
    /// As given to [`Db::open`] (for messages).
    path: PathBuf,
    /// Absolute, normalized directory of the file.
    root: PathBuf,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.path)
            .field("root", &self.root)
            .finish()
    }
}

impl Db {
    /// Open or create. The project root is the database file's parent directory; stored paths
    /// are relative to it.
    ///
    /// Before touching an existing file it checks the 16-byte SQLite header, then (through a
    /// read-only connection) `application_id`, `user_version` and whether it has tables: a
    /// foreign, corrupt or too-new file is refused and left byte-identical. A 0-byte file, or an
    /// empty SQLite database with neither application id nor tables, is initialized.
    /// Then: WAL mode, busy timeout [`BUSY_TIMEOUT`], foreign keys on; the schema is created or
    /// migrated forward one version per transaction (`user_version` updated in the same one).
    pub fn open(path: &Path) -> Result<Db, DbError> {
        let abs = paths::normalize(&paths::absolute(path));
        let root = abs
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        match std::fs::metadata(&abs) {
            Ok(m) if m.is_dir() => {
                return Err(DbError::NotADatabase {
                    path: path.to_path_buf(),
                    detail: "it is a directory".into(),
                })
            }
            Ok(m) if m.len() > 0 => check_existing(&abs, path)?,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !root.is_dir() {
                    return Err(DbError::Io {
                        path: path.to_path_buf(),
                        source: std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            format!("directory {} does not exist", root.display()),
                        ),
                    });
                }
            }
            Err(e) => {
                return Err(DbError::Io {
                    path: path.to_path_buf(),
                    source: e,
                })
            }
        }
        let conn = Connection::open_with_flags(
            &abs,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .at(path)?;
        conn.busy_timeout(BUSY_TIMEOUT).at(path)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .at(path)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(DbError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::other(format!(
                    "cannot use write-ahead logging here (journal mode stays {mode})"
                )),
            });
        }
        conn.pragma_update(None, "foreign_keys", true).at(path)?;
        let mut db = Db {
            conn,
            path: path.to_path_buf(),
            root,
        };
        db.migrate()?;
        Ok(db)
    }

    /// Create or upgrade the schema: one transaction per version step.
    fn migrate(&mut self) -> Result<(), DbError> {
        // The usual case needs no write lock: already ours and up to date.
        let p = self.path.clone();
        let app: i32 = self
            .conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .at(&p)?;
        let v: u32 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .at(&p)?;
        if app == APPLICATION_ID && v == SCHEMA_VERSION {
            return Ok(());
        }
        loop {
            let p = self.path.clone();
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .at(&p)?;
            let app: i32 = tx
                .query_row("PRAGMA application_id", [], |r| r.get(0))
                .at(&p)?;
            let v: u32 = tx
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .at(&p)?;
            if v == 0 {
                let tables: i64 = tx
                    .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                    .at(&p)?;
                if tables > 0 || (app != 0 && app != APPLICATION_ID) {
                    return Err(DbError::Foreign {
                        path: p,
                        reason: foreign_reason(app, tables),
                    });
                }
            } else if app != APPLICATION_ID {
                return Err(DbError::Foreign {
                    path: p,
                    reason: foreign_reason(app, 1),
                });
            }
            if v > SCHEMA_VERSION {
                return Err(DbError::TooNew {
                    path: p,
                    found: v,
                    supported: SCHEMA_VERSION,
                });
            }
            if v == SCHEMA_VERSION {
                tx.commit().at(&p)?;
                return Ok(());
            }
            if let Err(e) = tx.execute_batch(MIGRATIONS[v as usize]) {
                let msg = e.to_string();
                if msg.contains("already exists") || msg.contains("duplicate column") {
                    return Err(DbError::Damaged {
                        path: p,
                        detail: format!(
                            "its header says schema version {v} but it holds the tables of a later version ({msg}): the header was changed"
                        ),
                    });
                }
                return Err(sql_error(&p, e));
            }
            if v == 0 {
                tx.pragma_update(None, "application_id", APPLICATION_ID)
                    .at(&p)?;
            }
            tx.pragma_update(None, "user_version", v + 1).at(&p)?;
            tx.commit().at(&p)?;
        }
    }

    /// The path as given to [`open`](Self::open).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The project root: the database file's directory (absolute).
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn schema_version(&self) -> Result<u32, DbError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .at(&self.path)
    }

    /// How long to wait for another connection's lock (default [`BUSY_TIMEOUT`]).
    pub fn set_busy_timeout(&self, t: Duration) -> Result<(), DbError> {
        self.conn.busy_timeout(t).at(&self.path)
    }

    /// `PRAGMA integrity_check`: `"ok"` or SQLite's list of problems.
    pub fn integrity_check(&self) -> Result<String, DbError> {
        let mut st = self.conn.prepare("PRAGMA integrity_check").at(&self.path)?;
        let rows: Vec<String> = st
            .query_map([], |r| r.get(0))
            .at(&self.path)?
            .collect::<Result<_, _>>()
            .at(&self.path)?;
        Ok(rows.join("\n"))
    }

    /// `p` as stored: relative to the root with `/` separators, `../x` when outside it,
    /// absolute only when no relative form exists. Relative `p` are taken against the current
    /// directory.
    pub fn relative(&self, p: &Path) -> String {
        paths::relative_to(&self.root, p)
    }

    /// The file a stored path names.
    pub fn resolve(&self, rel: &str) -> PathBuf {
        paths::resolve_under(&self.root, rel)
    }

    /// Run `f` inside one read transaction: everything it reads comes from one snapshot, even
    /// while other connections write.
    pub fn snapshot<T>(&self, f: impl FnOnce(&Db) -> Result<T, DbError>) -> Result<T, DbError> {
        if !self.conn.is_autocommit() {
            return f(self);
        }
        let tx = self.conn.unchecked_transaction().at(&self.path)?;
        let r = f(self)?;
        tx.commit().at(&self.path)?;
        Ok(r)
    }
}

fn foreign_reason(app: i32, tables: i64) -> String {
    if app != 0 && app != APPLICATION_ID {
        format!("application_id {app:#010x}, sapfor uses {APPLICATION_ID:#010x}")
    } else {
        format!("it has {tables} schema objects and no sapfor application_id")
    }
}

/// Check an existing non-empty file without writing to it.
fn check_existing(abs: &Path, shown: &Path) -> Result<(), DbError> {
    use std::io::Read;
    let io = |e| DbError::Io {
        path: shown.to_path_buf(),
        source: e,
    };
    let mut head = Vec::with_capacity(100);
    std::fs::File::open(abs)
        .map_err(io)?
        .take(100)
        .read_to_end(&mut head)
        .map_err(io)?;
    if head.len() < 16 || &head[..16] != SQLITE_MAGIC {
        return Err(DbError::NotADatabase {
            path: shown.to_path_buf(),
            detail: "it does not start with the SQLite header".into(),
        });
    }
    if head.len() < 100 {
        return Err(DbError::NotADatabase {
            path: shown.to_path_buf(),
            detail: format!("truncated: only {} bytes", head.len()),
        });
    }
    let conn = Connection::open_with_flags(
        abs,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .at(shown)?;
    conn.busy_timeout(BUSY_TIMEOUT).at(shown)?;
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .at(shown)?;
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .at(shown)?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .at(shown)?;
    // damage inside the file (pages overwritten, a torn copy): SQLite's own consistency
    // check, reading every page once
    if app == APPLICATION_ID {
        let check: Result<Vec<String>, _> = conn
            .prepare("PRAGMA quick_check(5)")
            .and_then(|mut st| st.query_map([], |r| r.get::<_, String>(0))?.collect());
        match check {
            Ok(rows) if rows.len() == 1 && rows[0] == "ok" => {}
            Ok(rows) => {
                return Err(DbError::Damaged {
                    path: shown.to_path_buf(),
                    detail: format!("SQLite's check says: {}", rows.join("; ")),
                })
            }
            Err(e) => {
                return Err(DbError::Damaged {
                    path: shown.to_path_buf(),
                    detail: format!("SQLite's check failed: {e}"),
                })
            }
        }
    }
    drop(conn);
    if app == APPLICATION_ID && !(0..=i64::from(SCHEMA_VERSION) * 1000).contains(&v) {
        return Err(DbError::Damaged {
            path: shown.to_path_buf(),
            detail: format!("its schema version is {v}, which no sapfor writes"),
        });
    }
    let v = v.max(0) as u32;
    if app == APPLICATION_ID {
        if v > SCHEMA_VERSION {
            return Err(DbError::TooNew {
                path: shown.to_path_buf(),
                found: v,
                supported: SCHEMA_VERSION,
            });
        }
    } else if app != 0 || tables > 0 || v != 0 {
        return Err(DbError::Foreign {
            path: shown.to_path_buf(),
            reason: foreign_reason(app, tables),
        });
    }
    Ok(())
}
