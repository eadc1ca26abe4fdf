"""Versioned schema migrations for both backends, from one list of versions.

Each version is written once, in SQLite's SQL (MIGRATIONS); PostgreSQL runs the same text with a
few type substitutions (`postgres_script`): INTEGER PRIMARY KEY becomes an identity column,
INTEGER a BIGINT, REAL a DOUBLE PRECISION, TEXT is compared bytewise (COLLATE "C", as SQLite
compares, so the fixed-width UTC timestamps sort as times) and WITHOUT ROWID is dropped. A
version whose SQL cannot be substituted (triggers) gives its PostgreSQL text in POSTGRES.
SQLite tracks the version with PRAGMA user_version, PostgreSQL in the table schema_version
(adapters/storage/postgres/migrate.py).

Never edit a released migration: add the next one. tests/test_migrations.py builds a database
at every earlier version and upgrades it.
"""

from __future__ import annotations

import re
import sqlite3

from adapters.storage.open_errors import SchemaTooNew

MIGRATIONS: tuple[str, ...] = (
    # 1: chats, users, rounds, answers, materialised scores and streaks
    """
    CREATE TABLE chats (
        id INTEGER PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_key TEXT NOT NULL,
        kind TEXT NOT NULL,
        guild_key TEXT,
        title TEXT NOT NULL DEFAULT '',
        bank_id TEXT NOT NULL,
        timezone TEXT NOT NULL,
        language TEXT NOT NULL,
        reveal_policy TEXT NOT NULL,
        answer_policy TEXT NOT NULL,
        partial_credit INTEGER NOT NULL DEFAULT 0,
        paused INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        UNIQUE (platform, chat_key)
    );
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        platform TEXT NOT NULL,
        user_key TEXT NOT NULL,
        display_name TEXT NOT NULL,
        UNIQUE (platform, user_key)
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        bank_id TEXT NOT NULL,
        question_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        closes_at TEXT NOT NULL,
        reveal TEXT NOT NULL,
        answer_policy TEXT NOT NULL,
        partial_credit INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
        closed_at TEXT,
        message_ref TEXT,
        daily_date TEXT,
        contest_id INTEGER
    );
    CREATE UNIQUE INDEX rounds_one_daily_per_date ON rounds (chat_id, daily_date)
        WHERE daily_date IS NOT NULL;
    CREATE INDEX rounds_open ON rounds (closes_at) WHERE state = 'open';
    CREATE INDEX rounds_by_chat ON rounds (chat_id, bank_id, question_id);
    CREATE TABLE answers (
        id INTEGER PRIMARY KEY,
        round_id INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        response TEXT NOT NULL,
        answered_at TEXT NOT NULL,
        verdict TEXT NOT NULL,
        fraction REAL NOT NULL,
        points REAL NOT NULL,
        week_key TEXT NOT NULL,
        month_key TEXT NOT NULL,
        changes INTEGER NOT NULL DEFAULT 0,
        UNIQUE (round_id, user_id)
    );
    CREATE INDEX answers_by_user ON answers (user_id, round_id);
    CREATE TABLE scores (
        scope TEXT NOT NULL,
        win TEXT NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users(id),
        points REAL NOT NULL DEFAULT 0,
        answers INTEGER NOT NULL DEFAULT 0,
        correct INTEGER NOT NULL DEFAULT 0,
        reached_at TEXT NOT NULL,
        PRIMARY KEY (scope, win, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX scores_rank ON scores (scope, win, points DESC, reached_at, user_id);
    CREATE TABLE streaks (
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        current INTEGER NOT NULL DEFAULT 0,
        best INTEGER NOT NULL DEFAULT 0,
        last_date TEXT,
        PRIMARY KEY (chat_id, user_id)
    ) WITHOUT ROWID;
    """,
    # 2: daily schedules and contests
    """
    CREATE TABLE dailies (
        chat_id INTEGER PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
        local_time TEXT NOT NULL,
        timezone TEXT NOT NULL,
        weekdays TEXT NOT NULL DEFAULT '0123456',
        deadline_seconds INTEGER NOT NULL CHECK (deadline_seconds > 0),
        tag TEXT,
        mode TEXT NOT NULL DEFAULT 'buttons',
        enabled INTEGER NOT NULL DEFAULT 1,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE contests (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        question_ids TEXT NOT NULL,
        seconds INTEGER NOT NULL CHECK (seconds > 0),
        pause_seconds REAL NOT NULL,
        position INTEGER NOT NULL DEFAULT 0,
        phase TEXT NOT NULL CHECK (phase IN ('question', 'pause', 'finished', 'stopped')),
        phase_until TEXT,
        round_id INTEGER REFERENCES rounds(id),
        scored_position INTEGER NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        finished_at TEXT
    );
    CREATE UNIQUE INDEX contests_one_running_per_chat ON contests (chat_id)
        WHERE phase IN ('question', 'pause');
    CREATE TABLE contest_scores (
        contest_id INTEGER NOT NULL REFERENCES contests(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        points INTEGER NOT NULL DEFAULT 0,
        correct INTEGER NOT NULL DEFAULT 0,
        answered INTEGER NOT NULL DEFAULT 0,
        streak INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (contest_id, user_id)
    ) WITHOUT ROWID;
    """,
    # 3: how many users stand at each score on each board, kept by triggers, so a user's rank is
    # a sum over a few buckets plus the ties ahead, not a count over every user ahead
    """
    CREATE TABLE score_buckets (
        scope TEXT NOT NULL,
        win TEXT NOT NULL,
        points REAL NOT NULL,
        users INTEGER NOT NULL,
        PRIMARY KEY (scope, win, points)
    ) WITHOUT ROWID;
    INSERT INTO score_buckets (scope, win, points, users)
        SELECT scope, win, points, count(*) FROM scores GROUP BY scope, win, points;
    CREATE TRIGGER score_buckets_insert AFTER INSERT ON scores BEGIN
        INSERT INTO score_buckets (scope, win, points, users) VALUES (new.scope, new.win, new.points, 1)
            ON CONFLICT (scope, win, points) DO UPDATE SET users = users + 1;
    END;
    CREATE TRIGGER score_buckets_update AFTER UPDATE OF points ON scores
        WHEN old.points != new.points BEGIN
        UPDATE score_buckets SET users = users - 1
            WHERE scope = old.scope AND win = old.win AND points = old.points;
        INSERT INTO score_buckets (scope, win, points, users) VALUES (new.scope, new.win, new.points, 1)
            ON CONFLICT (scope, win, points) DO UPDATE SET users = users + 1;
    END;
    ALTER TABLE rounds ADD COLUMN answer_mode TEXT NOT NULL DEFAULT 'buttons';
    CREATE INDEX rounds_by_message ON rounds (chat_id, message_ref) WHERE message_ref IS NOT NULL;
    CREATE TRIGGER score_buckets_delete AFTER DELETE ON scores BEGIN
        UPDATE score_buckets SET users = users - 1
            WHERE scope = old.scope AND win = old.win AND points = old.points;
    END;
    """,
    # 4: server-wide settings (a Discord server's language, which its new channels start with)
    """
    CREATE TABLE guild_settings (
        platform TEXT NOT NULL,
        guild_key TEXT NOT NULL,
        language TEXT NOT NULL,
        PRIMARY KEY (platform, guild_key)
    ) WITHOUT ROWID;
    CREATE INDEX chats_by_guild ON chats (platform, guild_key) WHERE guild_key IS NOT NULL;
    """,
    # 5: study tools: FSRS cards, the mistake notebook and favourites, fed from the answers
    # (answers.studied marks what they have seen; answers from before this version are fed too)
    """
    ALTER TABLE answers ADD COLUMN studied INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX answers_unstudied ON answers (id) WHERE studied = 0;
    CREATE TABLE study_cards (
        user_id INTEGER NOT NULL REFERENCES users(id),
        bank_id TEXT NOT NULL,
        question_id TEXT NOT NULL,
        state INTEGER NOT NULL,
        step INTEGER,
        stability REAL,
        difficulty REAL,
        due TEXT NOT NULL,
        last_review TEXT,
        reviews INTEGER NOT NULL DEFAULT 0,
        lapses INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, bank_id, question_id)
    ) WITHOUT ROWID;
    CREATE INDEX study_cards_due ON study_cards (user_id, bank_id, due);
    CREATE TABLE mistakes (
        user_id INTEGER NOT NULL REFERENCES users(id),
        bank_id TEXT NOT NULL,
        question_id TEXT NOT NULL,
        misses INTEGER NOT NULL,
        right_streak INTEGER NOT NULL,
        last_missed TEXT NOT NULL,
        active INTEGER NOT NULL,
        PRIMARY KEY (user_id, bank_id, question_id)
    ) WITHOUT ROWID;
    CREATE TABLE favourites (
        user_id INTEGER NOT NULL REFERENCES users(id),
        bank_id TEXT NOT NULL,
        question_id TEXT NOT NULL,
        added_at TEXT NOT NULL,
        PRIMARY KEY (user_id, bank_id, question_id)
    ) WITHOUT ROWID;
    """,
    # 6: mock exams and their answers, error reports on questions
    """
    CREATE TABLE mocks (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        chat_id INTEGER NOT NULL REFERENCES chats(id),
        bank_id TEXT NOT NULL,
        items TEXT NOT NULL,
        sections TEXT NOT NULL,
        pass_mark REAL NOT NULL,
        started_at TEXT NOT NULL,
        ends_at TEXT NOT NULL,
        position INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL,
        submitted_at TEXT,
        score REAL
    );
    CREATE UNIQUE INDEX mocks_open ON mocks (user_id) WHERE state = 'open';
    CREATE INDEX mocks_by_user ON mocks (user_id, id);
    CREATE TABLE mock_answers (
        mock_id INTEGER NOT NULL REFERENCES mocks(id),
        item INTEGER NOT NULL,
        response TEXT,
        flagged INTEGER NOT NULL DEFAULT 0,
        verdict TEXT,
        fraction REAL,
        PRIMARY KEY (mock_id, item)
    ) WITHOUT ROWID;
    CREATE TABLE reports (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        chat_id INTEGER NOT NULL REFERENCES chats(id),
        bank_id TEXT NOT NULL,
        bank_version TEXT NOT NULL,
        question_id TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'open',
        note TEXT,
        closed_at TEXT
    );
    CREATE INDEX reports_open ON reports (bank_id, question_id) WHERE state = 'open';
    """,
    # 7: banks uploaded in chats (/bank import), each of one group or server, in compiled form
    """
    CREATE TABLE uploaded_banks (
        id TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        owner_key TEXT NOT NULL,
        name TEXT NOT NULL,
        title TEXT NOT NULL,
        version TEXT NOT NULL,
        questions INTEGER NOT NULL,
        data TEXT NOT NULL,
        uploaded_at TEXT NOT NULL,
        uploaded_by INTEGER REFERENCES users(id)
    );
    """,
    # 8: sequential practice positions, daily review reminders, the reported item's own hash
    """
    CREATE TABLE practice_positions (
        user_id INTEGER NOT NULL REFERENCES users(id),
        bank_id TEXT NOT NULL,
        number INTEGER NOT NULL,
        PRIMARY KEY (user_id, bank_id)
    ) WITHOUT ROWID;
    CREATE TABLE review_reminders (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        chat_id INTEGER NOT NULL REFERENCES chats(id),
        at_time TEXT NOT NULL,
        timezone TEXT NOT NULL
    );
    ALTER TABLE reports ADD COLUMN question_hash TEXT;
    """,
    # 9: the outbox: posts owed to chats (dailies, reveals, contest steps, notices), oldest first
    # per chat, written with the state change that causes them and deleted once delivered
    """
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        what TEXT NOT NULL,
        payload TEXT NOT NULL,
        round_id INTEGER,
        created_at TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX outbox_by_chat ON outbox (chat_id, id);
    CREATE INDEX outbox_by_round ON outbox (round_id) WHERE round_id IS NOT NULL;
    """,
    # 10: several processes on one database: due firings claimed once each (an idempotency key
    # per schedule, round or contest, date or step, and kind), the outbox's per-chat delivery
    # leases, the processes alive, multiple-choice selections being built (a person's clicks
    # may reach any process), and request limits counted for all processes together
    """
    CREATE TABLE firings (
        key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        fired_at TEXT NOT NULL
    );
    CREATE INDEX firings_by_time ON firings (fired_at);
    CREATE TABLE outbox_leases (
        chat_id INTEGER NOT NULL PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
        owner TEXT NOT NULL,
        lease_until TEXT NOT NULL
    );
    CREATE INDEX outbox_leases_by_owner ON outbox_leases (owner);
    CREATE TABLE members (
        owner TEXT PRIMARY KEY,
        started_at TEXT NOT NULL,
        seen_until TEXT NOT NULL
    );
    CREATE TABLE selections (
        round_id INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        platform TEXT NOT NULL,
        user_key TEXT NOT NULL,
        chosen TEXT NOT NULL,
        PRIMARY KEY (round_id, platform, user_key)
    );
    CREATE TABLE throttles (
        key TEXT PRIMARY KEY,
        started REAL NOT NULL,
        hits INTEGER NOT NULL
    );
    """,
    # 11: PostgreSQL only (see POSTGRES): the answers table without its foreign keys; nothing
    # changes on SQLite, where a foreign key check is an index probe in the same process
    """
    SELECT 1;
    """,
    # 12: who looks after a bank and hears of its reports: an uploaded bank's uploading chat and
    # the uploader's platform user key (for a private notice); a report's own message (the
    # resolution answers it)
    """
    ALTER TABLE uploaded_banks ADD COLUMN uploaded_in TEXT;
    ALTER TABLE uploaded_banks ADD COLUMN uploader_key TEXT;
    ALTER TABLE reports ADD COLUMN message_ref TEXT;
    """,
    # 13: the drilling loop: a person's practice run in a chat (its mode and filters; one open
    # at a time), the rounds it asked (and whether each question was in the notebook then, for
    # the run's new mistakes), and the items of a random-practice pool already served, so none
    # repeats before the pool is used up
    """
    CREATE TABLE practice_runs (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        bank_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        qtype TEXT,
        tags TEXT NOT NULL DEFAULT '',
        started_at TEXT NOT NULL,
        ended_at TEXT
    );
    CREATE UNIQUE INDEX practice_runs_open ON practice_runs (user_id, chat_id) WHERE ended_at IS NULL;
    CREATE INDEX practice_runs_by_person ON practice_runs (user_id, chat_id, id);
    CREATE TABLE practice_run_items (
        run_id INTEGER NOT NULL REFERENCES practice_runs(id) ON DELETE CASCADE,
        round_id INTEGER NOT NULL,
        question_id TEXT NOT NULL,
        in_notebook INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, round_id)
    ) WITHOUT ROWID;
    CREATE TABLE practice_seen (
        user_id INTEGER NOT NULL REFERENCES users(id),
        bank_id TEXT NOT NULL,
        pool TEXT NOT NULL,
        question_id TEXT NOT NULL,
        PRIMARY KEY (user_id, bank_id, pool, question_id)
    ) WITHOUT ROWID;
    """,
    # 14: an upload waiting for /bank confirm, one per chat, with its expiry: kept here, not in
    # the memory of the process that read it, so it survives a restart and a confirm that
    # reaches another process finds it
    """
    CREATE TABLE pending_uploads (
        platform TEXT NOT NULL,
        chat_key TEXT NOT NULL,
        bank_id TEXT NOT NULL,
        owner_platform TEXT NOT NULL,
        owner_key TEXT NOT NULL,
        name TEXT NOT NULL,
        title TEXT NOT NULL,
        version TEXT NOT NULL,
        questions INTEGER NOT NULL,
        data TEXT NOT NULL,
        uploaded_at TEXT NOT NULL,
        uploaded_by INTEGER,
        uploaded_in TEXT,
        uploader_key TEXT,
        expires_at TEXT NOT NULL,
        PRIMARY KEY (platform, chat_key)
    ) WITHOUT ROWID;
    """,
    # 15: a mistake's cause, the learner's own word on why they missed it (bot/domain/mastery.py
    # CAUSES); kept apart from the notebook entry, which the study feed rewrites on every answer
    """
    CREATE TABLE mistake_causes (
        user_id INTEGER NOT NULL REFERENCES users(id),
        bank_id TEXT NOT NULL,
        question_id TEXT NOT NULL,
        cause TEXT NOT NULL,
        tagged_at TEXT NOT NULL,
        PRIMARY KEY (user_id, bank_id, question_id)
    ) WITHOUT ROWID;
    """,
    # 16: the exam plan (bot/domain/exam_plan.py): a learner's exam date per bank with the minutes
    # they have a day, and their own study settings (quiet hours, the hour their day starts)
    """
    CREATE TABLE exam_dates (
        user_id INTEGER NOT NULL REFERENCES users(id),
        bank_id TEXT NOT NULL,
        exam_on TEXT NOT NULL,
        minutes INTEGER CHECK (minutes > 0),
        set_at TEXT NOT NULL,
        PRIMARY KEY (user_id, bank_id)
    ) WITHOUT ROWID;
    CREATE TABLE learner_settings (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        quiet_from TEXT,
        quiet_until TEXT,
        day_start TEXT NOT NULL DEFAULT '00:00'
    );
    """,
    # 17: a learner's own memory model (bot/application/study/memory_fit.py): the retention their reviews are
    # scheduled for, and the FSRS parameters fitted on their history (JSON list; NULL: the defaults)
    """
    CREATE TABLE learner_memory (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        desired_retention REAL NOT NULL DEFAULT 0.9,
        parameters TEXT,
        fitted_reviews INTEGER NOT NULL DEFAULT 0,
        fitted_at TEXT
    );
    """,
    # 18: the web app's one-time sign-in links and sessions (bot/application/web_access.py), each kept by
    # the SHA-256 of its token, never the token itself
    """
    CREATE TABLE web_links (
        token_hash TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_kind TEXT NOT NULL,
        chat_key TEXT NOT NULL,
        user_key TEXT NOT NULL,
        display_name TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
    ) WITHOUT ROWID;
    CREATE TABLE web_sessions (
        token_hash TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_kind TEXT NOT NULL,
        chat_key TEXT NOT NULL,
        user_key TEXT NOT NULL,
        display_name TEXT NOT NULL,
        expires_at TEXT NOT NULL
    ) WITHOUT ROWID;
    """,
)

# PostgreSQL's text for the versions the substitutions cannot produce, by version number.
POSTGRES: dict[int, str] = {
    # 3: the score buckets kept by one trigger function
    3: """
    CREATE TABLE score_buckets (
        scope TEXT COLLATE "C" NOT NULL,
        win TEXT COLLATE "C" NOT NULL,
        points DOUBLE PRECISION NOT NULL,
        users BIGINT NOT NULL,
        PRIMARY KEY (scope, win, points)
    );
    INSERT INTO score_buckets (scope, win, points, users)
        SELECT scope, win, points, count(*) FROM scores GROUP BY scope, win, points;
    CREATE FUNCTION score_buckets_track() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
            UPDATE score_buckets SET users = users - 1
                WHERE scope = OLD.scope AND win = OLD.win AND points = OLD.points;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
            INSERT INTO score_buckets (scope, win, points, users) VALUES (NEW.scope, NEW.win, NEW.points, 1)
                ON CONFLICT (scope, win, points) DO UPDATE SET users = score_buckets.users + 1;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER score_buckets_insert AFTER INSERT OR DELETE ON scores
        FOR EACH ROW EXECUTE FUNCTION score_buckets_track();
    CREATE TRIGGER score_buckets_update AFTER UPDATE OF points ON scores
        FOR EACH ROW WHEN (OLD.points IS DISTINCT FROM NEW.points) EXECUTE FUNCTION score_buckets_track();
    ALTER TABLE rounds ADD COLUMN answer_mode TEXT COLLATE "C" NOT NULL DEFAULT 'buttons';
    CREATE INDEX rounds_by_message ON rounds (chat_id, message_ref) WHERE message_ref IS NOT NULL;
    """,
    # 11: answers without the foreign keys to rounds and users. Checking them took over a third
    # of the server's CPU per stored answer (about 14 µs against 8, two connections inserting
    # batches of 100: each inserted row runs a lookup that row-locks its round and its user, and
    # two transactions locking one row build a multixact), and the code already guarantees both
    # references: every INSERT INTO answers (postgres/answers.py) joins the rounds its
    # transaction has locked FOR SHARE, so an answer is stored only for a round that exists and
    # stays until the commit; user ids come from ensure_user(s) on the same database, and
    # studybot never deletes a user or a round. What the keys did on deletion is kept for an
    # operator's manual DELETE: a deleted round takes its answers along (the ON DELETE CASCADE
    # of before), a user with answers cannot be deleted (the NO ACTION of before).
    11: """
    ALTER TABLE answers DROP CONSTRAINT answers_round_id_fkey;
    ALTER TABLE answers DROP CONSTRAINT answers_user_id_fkey;
    CREATE FUNCTION answers_follow_rounds() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM answers WHERE round_id = OLD.id;
        RETURN NULL;
    END $$;
    CREATE TRIGGER answers_follow_rounds AFTER DELETE ON rounds
        FOR EACH ROW EXECUTE FUNCTION answers_follow_rounds();
    CREATE FUNCTION answers_keep_users() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM answers WHERE user_id = OLD.id) THEN
            RAISE foreign_key_violation USING MESSAGE = 'user ' || OLD.id || ' still has answers';
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER answers_keep_users AFTER DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION answers_keep_users();
    """,
}

LATEST = len(MIGRATIONS)

_SUBSTITUTIONS = (
    (re.compile(r"\bINTEGER PRIMARY KEY\b"), "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
    (re.compile(r"\bTEXT\b"), 'TEXT COLLATE "C"'),
    (re.compile(r"\)\s*WITHOUT ROWID"), ")"),
)


def postgres_script(version: int) -> str:
    """Version `version`'s migration in PostgreSQL's SQL."""
    if version in POSTGRES:
        return POSTGRES[version]
    script = MIGRATIONS[version - 1]
    for pattern, replacement in _SUBSTITUTIONS:
        script = pattern.sub(replacement, script)
    return script


def migrate(conn: sqlite3.Connection, target: int = LATEST) -> int:
    """Bring a plain sqlite3 connection's schema up to `target`; returns the version found."""
    conn.isolation_level = None  # explicit BEGIN/COMMIT below
    found = conn.execute("PRAGMA user_version").fetchone()[0]
    if found > LATEST:
        raise SchemaTooNew(
            f"database schema version {found} is newer than this studybot ({LATEST}); upgrade studybot"
        )
    for version in range(found + 1, target + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(MIGRATIONS[version - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite already rolled back after an I/O error or a full disk
                conn.execute("ROLLBACK")
            raise
    return found


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (sqlite3.complete_statement knows the grammar)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
