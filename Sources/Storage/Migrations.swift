import OnTheMapModels
import SQLKit

/// Numbered schema migrations, applied once each, in order. Never edit a shipped
/// migration: add the next number. SQL here stays within what SQLite and PostgreSQL share;
/// `statement(_:for:)` adds the collation PostgreSQL needs on top, and `postgresOnly`
/// holds what only PostgreSQL has (the change notifications).
enum Migrations {
    static let all: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE accounts (
                key TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                password_hash TEXT NOT NULL,
                first_name TEXT NOT NULL,
                last_name TEXT NOT NULL,
                created_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX sessions_expires_at ON sessions (expires_at)",
            """
            CREATE TABLE student_locations (
                object_id TEXT PRIMARY KEY,
                owner_key TEXT REFERENCES accounts(key) ON DELETE SET NULL,
                unique_key TEXT NOT NULL,
                first_name TEXT NOT NULL,
                last_name TEXT NOT NULL,
                map_string TEXT NOT NULL,
                media_url TEXT NOT NULL,
                latitude DOUBLE PRECISION NOT NULL,
                longitude DOUBLE PRECISION NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )
            """,
            // `order=-updatedAt` paging is what every client asks for; objectId breaks ties.
            "CREATE INDEX student_locations_updated_at ON student_locations (updated_at DESC, object_id DESC)",
            "CREATE INDEX student_locations_unique_key ON student_locations (unique_key)",
            "CREATE INDEX student_locations_owner_key ON student_locations (owner_key)",
        ]),
        // Travel: pins, their photo albums, and per-pin provider state.
        (2, [
            """
            CREATE TABLE pins (
                id TEXT PRIMARY KEY,
                owner_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                latitude DOUBLE PRECISION NOT NULL,
                longitude DOUBLE PRECISION NOT NULL,
                place_name TEXT NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX pins_owner_key ON pins (owner_key, created_at, id)",
            """
            CREATE TABLE photos (
                id TEXT PRIMARY KEY,
                pin_id TEXT NOT NULL REFERENCES pins(id) ON DELETE CASCADE,
                collection INTEGER NOT NULL,
                position INTEGER NOT NULL,
                provider TEXT NOT NULL,
                remote_id TEXT NOT NULL,
                remote_url TEXT NOT NULL,
                title TEXT NOT NULL,
                author TEXT NOT NULL,
                license TEXT,
                attribution_url TEXT,
                file_path TEXT,
                content_type TEXT,
                byte_count BIGINT,
                content_hash TEXT,
                state TEXT NOT NULL CHECK (state IN ('pending', 'ready', 'failed')),
                failure_reason TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX photos_pin_id ON photos (pin_id, position, id)",
            "CREATE INDEX photos_state ON photos (state, created_at)",
            """
            CREATE TABLE album_states (
                pin_id TEXT PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                collection INTEGER NOT NULL,
                page INTEGER NOT NULL,
                pages INTEGER NOT NULL,
                total INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('searching', 'downloading', 'complete', 'failed')),
                error_code TEXT,
                error_message TEXT,
                updated_at TEXT NOT NULL
            )
            """,
        ]),
        // Version 3 is PostgreSQL's alone (see `postgresOnly`); SQLite records it as done.
        (3, []),
        // Security: sessions are now stored as token digests, so the plain ids stored until
        // now are dropped (everyone logs in once more); a location's uniqueKey is its
        // owner's key, so records that claimed another account's key are repaired.
        (4, [
            "DELETE FROM sessions",
            "UPDATE student_locations SET unique_key = owner_key WHERE owner_key IS NOT NULL AND unique_key <> owner_key",
            "CREATE INDEX IF NOT EXISTS sessions_account_key ON sessions (account_key)",
        ]),
        // Login throttling shared by every server: failure counters and locks per subject
        // (account, client address, device), and the devices each account has logged in from.
        (5, [
            """
            CREATE TABLE login_failures (
                kind TEXT NOT NULL,
                subject TEXT NOT NULL,
                failures INTEGER NOT NULL,
                last_failure_at TEXT NOT NULL,
                locked_until TEXT,
                PRIMARY KEY (kind, subject)
            )
            """,
            """
            CREATE TABLE login_devices (
                digest TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                last_login_at TEXT NOT NULL
            )
            """,
        ]),
        // The live map's change log: every write to student_locations, by any server or by
        // hand, appends a row whose `version` the database assigns, so every server streams
        // the same changes in the same order. Dialect-specific (see `sqliteOnly` and
        // `postgresOnly`): the autoincrement column and the triggers are spelled differently.
        (6, []),
        // Running a community: administrators and disabled accounts, moderated (hidden) posts
        // and posts hidden with their disabled author, reports, the moderation log authors
        // read their notices from, and one-time password-reset links (stored as digests).
        // The oldest account becomes the administrator, as a new server's first sign-up does.
        (7, [
            "ALTER TABLE accounts ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE accounts ADD COLUMN disabled_at TEXT",
            "UPDATE accounts SET is_admin = 1 WHERE key = (SELECT key FROM accounts ORDER BY created_at, key LIMIT 1)",
            "ALTER TABLE student_locations ADD COLUMN hidden_at TEXT",
            "ALTER TABLE student_locations ADD COLUMN hidden_reason TEXT",
            "ALTER TABLE student_locations ADD COLUMN owner_disabled INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE location_reports (
                id TEXT PRIMARY KEY,
                object_id TEXT NOT NULL REFERENCES student_locations(object_id) ON DELETE CASCADE,
                reporter_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                reason TEXT NOT NULL,
                created_at TEXT NOT NULL,
                UNIQUE (object_id, reporter_key)
            )
            """,
            "CREATE INDEX location_reports_reporter ON location_reports (reporter_key, created_at)",
            """
            CREATE TABLE moderation_actions (
                id TEXT PRIMARY KEY,
                action TEXT NOT NULL,
                account_key TEXT,
                object_id TEXT,
                map_string TEXT,
                reason TEXT NOT NULL,
                moderator_key TEXT,
                created_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX moderation_actions_account ON moderation_actions (account_key, created_at)",
            """
            CREATE TABLE password_resets (
                digest TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            )
            """,
        ]),
        // Travel on several servers: a pending photo's download is claimed by one server
        // (`claim_owner`, a per-process id) until `claim_expires_at`, renewed while it runs;
        // an expired claim is taken over. `usage_counters` counts photo searches per window,
        // per account and per provider key, for every server together.
        (8, [
            "ALTER TABLE photos ADD COLUMN claim_owner TEXT",
            "ALTER TABLE photos ADD COLUMN claim_expires_at TEXT",
            "CREATE INDEX photos_claim ON photos (state, claim_expires_at)",
            """
            CREATE TABLE usage_counters (
                name TEXT NOT NULL,
                window_start TEXT NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (name, window_start)
            )
            """,
        ]),
        // Sign-in with other accounts (OpenID Connect providers, Facebook): which provider
        // identity belongs to which account; sign-ins under way (state, nonce and PKCE
        // verifier, single-use, kept here so any server can finish what another started);
        // and, per session, the provider it came from and what logging out there needs.
        (9, [
            """
            CREATE TABLE identity_links (
                id TEXT PRIMARY KEY,
                provider TEXT NOT NULL,
                subject TEXT NOT NULL,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                email TEXT NOT NULL,
                created_at TEXT NOT NULL,
                UNIQUE (provider, subject),
                UNIQUE (provider, account_key)
            )
            """,
            "CREATE INDEX identity_links_account ON identity_links (account_key)",
            """
            CREATE TABLE pending_sign_ins (
                state_digest TEXT PRIMARY KEY,
                provider TEXT NOT NULL,
                nonce TEXT NOT NULL,
                code_verifier TEXT NOT NULL,
                return_path TEXT NOT NULL,
                browser_digest TEXT NOT NULL,
                link_account_key TEXT,
                client_redirect TEXT,
                client_challenge TEXT,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX pending_sign_ins_expires ON pending_sign_ins (expires_at)",
            // A native app's sign-in (RFC 8252): the browser brings a one-time code to the
            // app's loopback address; the app trades it, with its PKCE verifier, for a session.
            """
            CREATE TABLE sign_in_handoffs (
                code_digest TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                challenge TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE session_sign_ins (
                session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                id_token TEXT,
                access_token TEXT
            )
            """,
        ]),
        // Proven emails. A password sign-up proves nothing about its email, so a provider
        // vouching for that email later must not sign its person in to whoever typed it: the
        // account goes to that person instead (`claimAccount`). `email_verified` says a
        // provider vouched for the account's email; `origin` says how a link was made. Links
        // made before this version are `legacy` (see `IdentityLink.Origin`). An account a
        // provider created with its own email, still without a password, is proven.
        (10, [
            "ALTER TABLE accounts ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE identity_links ADD COLUMN origin TEXT NOT NULL DEFAULT 'legacy'",
            """
            UPDATE accounts SET email_verified = 1 WHERE password_hash = ''
              AND EXISTS (SELECT 1 FROM identity_links WHERE identity_links.account_key = accounts.key AND identity_links.email = accounts.email)
            """,
        ]),
        // Classes: many private maps on one server. Every location (and every logged change)
        // belongs to a class; today's map moves into the class `default` (slug `main`). A new
        // database's default class is members-only and open (every account is a member); an
        // existing community keeps its public map until the host says otherwise. The partial
        // index serves "one class's visible locations, newest first" without reading the table.
        (11, [
            """
            CREATE TABLE classes (
                id TEXT PRIMARY KEY,
                slug TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                visibility TEXT NOT NULL CHECK (visibility IN ('members', 'server', 'public')),
                join_rule TEXT NOT NULL CHECK (join_rule IN ('invite', 'open', 'closed')),
                invite_code TEXT UNIQUE,
                created_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE class_members (
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                role TEXT NOT NULL CHECK (role IN ('teacher', 'moderator', 'student')),
                joined_at TEXT NOT NULL,
                PRIMARY KEY (class_id, account_key)
            )
            """,
            "CREATE INDEX class_members_account ON class_members (account_key)",
            "ALTER TABLE student_locations ADD COLUMN class_id TEXT NOT NULL DEFAULT 'default'",
            "ALTER TABLE location_changes ADD COLUMN class_id TEXT NOT NULL DEFAULT 'default'",
            """
            CREATE INDEX student_locations_class_visible ON student_locations (class_id, updated_at DESC, object_id DESC)
            WHERE hidden_at IS NULL AND owner_disabled = 0
            """,
            "CREATE INDEX student_locations_class_owner ON student_locations (class_id, unique_key)",
        ]),
        // Privacy: how precisely each class shows where its students are (`MapClass.Precision`).
        // Classes that exist keep exact points; the server makes new ones `city`.
        (12, [
            "ALTER TABLE classes ADD COLUMN precision TEXT NOT NULL DEFAULT 'exact' CHECK (precision IN ('exact', 'city', 'region', 'country'))",
        ]),
        // An approval queue per class: a waiting post is its author's and the moderators' only,
        // so it is left out of the visible posts' index, and the change log tells viewers of a
        // post that starts waiting that it is gone (dialect parts: the triggers).
        (13, [
            "ALTER TABLE classes ADD COLUMN approval TEXT NOT NULL DEFAULT 'off' CHECK (approval IN ('off', 'new-members', 'all'))",
            "ALTER TABLE student_locations ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0",
            "DROP INDEX student_locations_class_visible",
            """
            CREATE INDEX student_locations_class_visible ON student_locations (class_id, updated_at DESC, object_id DESC)
            WHERE hidden_at IS NULL AND owner_disabled = 0 AND waiting = 0
            """,
            "CREATE INDEX student_locations_class_waiting ON student_locations (class_id, updated_at) WHERE waiting = 1",
        ]),
        // End of term: an archived class's map is read-only, its posts kept.
        (14, [
            "ALTER TABLE classes ADD COLUMN archived_at TEXT",
        ]),
        // A class's snapshot reads its visible posts in object-id order, a page at a time:
        // from this index, each page is a range instead of a sort of the rest of the class.
        (15, [
            """
            CREATE INDEX student_locations_class_object ON student_locations (class_id, object_id)
            WHERE hidden_at IS NULL AND owner_disabled = 0 AND waiting = 0
            """,
        ]),
        // LTI 1.3: the learning platforms registered with this tool (and their deployments),
        // the tool's own signing keys (a retired key is still published until it is deleted),
        // logins under way (a state and nonce bound to a browser, minutes long), which class
        // each course opens (one per platform, deployment and context, plus classes made for
        // the course by deep linking), the course roster as the platform last gave it, and
        // one-time tickets (a window's hand-off, a deep-linking choice, a registration invite).
        (16, [
            """
            CREATE TABLE lti_platforms (
                id TEXT PRIMARY KEY,
                issuer TEXT NOT NULL,
                client_id TEXT NOT NULL,
                name TEXT NOT NULL,
                auth_url TEXT NOT NULL,
                token_url TEXT NOT NULL,
                jwks_url TEXT NOT NULL,
                token_audience TEXT,
                frame_origins TEXT NOT NULL DEFAULT '',
                trust_email INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                UNIQUE (issuer, client_id)
            )
            """,
            """
            CREATE TABLE lti_deployments (
                platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                deployment_id TEXT NOT NULL,
                PRIMARY KEY (platform_id, deployment_id)
            )
            """,
            """
            CREATE TABLE lti_keys (
                kid TEXT PRIMARY KEY,
                private_key TEXT NOT NULL,
                created_at TEXT NOT NULL,
                retired_at TEXT
            )
            """,
            """
            CREATE TABLE lti_logins (
                state_digest TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                nonce TEXT NOT NULL,
                browser_digest TEXT NOT NULL,
                target_link_uri TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE lti_courses (
                platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                deployment_id TEXT NOT NULL,
                context_id TEXT NOT NULL,
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                course_class INTEGER NOT NULL,
                memberships_url TEXT,
                synced_at TEXT,
                PRIMARY KEY (platform_id, deployment_id, context_id, class_id)
            )
            """,
            "CREATE UNIQUE INDEX lti_courses_course_class ON lti_courses (platform_id, deployment_id, context_id) WHERE course_class = 1",
            "CREATE INDEX lti_courses_class ON lti_courses (class_id)",
            """
            CREATE TABLE lti_roster (
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                subject TEXT NOT NULL,
                name TEXT NOT NULL,
                roles TEXT NOT NULL,
                in_course INTEGER NOT NULL,
                account_key TEXT,
                PRIMARY KEY (class_id, platform_id, subject)
            )
            """,
            "CREATE INDEX lti_roster_account ON lti_roster (account_key)",
            """
            CREATE TABLE lti_tickets (
                digest TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                account_key TEXT,
                payload TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
        ]),
        // The language an account chose for the web app (a tag such as "de"; NULL: the
        // browser's), so it follows the student to every device.
        (17, [
            "ALTER TABLE accounts ADD COLUMN language TEXT",
        ]),
        // The live map's log keeps only the newest change of each record, so a replay can
        // never serve a copy the store has since replaced, hidden or deleted (an exact point
        // before its class showed towns, a post before its author deleted it); it also logs
        // when someone's access ends (`ended`: a membership with its account's key, a session
        // with its token's digest, a disabled account, a class's visibility or its end), so
        // every server closes the matching streams. The
        // earlier copies kept until now go, and a kept copy of a record no one may see any
        // more becomes a plain deletion (dialect parts: the triggers).
        (18, [
            "CREATE INDEX location_changes_object ON location_changes (object_id, version)",
            // Below which version the log was pruned: its gaps above are records' earlier
            // changes, replaced by their newest; below, changes that are not kept at all.
            "CREATE TABLE location_log_horizon (id INTEGER PRIMARY KEY CHECK (id = 1), pruned_through BIGINT NOT NULL)",
            "INSERT INTO location_log_horizon (id, pruned_through) SELECT 1, COALESCE(MIN(version) - 1, 0) FROM location_changes",
            """
            DELETE FROM location_changes WHERE kind IN ('created', 'updated', 'deleted') AND version < (
                SELECT MAX(newer.version) FROM location_changes AS newer
                WHERE newer.object_id = location_changes.object_id AND newer.kind IN ('created', 'updated', 'deleted'))
            """,
            """
            UPDATE location_changes SET kind = 'deleted', unique_key = NULL, first_name = NULL, last_name = NULL, map_string = NULL,
                media_url = NULL, latitude = NULL, longitude = NULL, created_at = NULL, updated_at = NULL
            WHERE kind IN ('created', 'updated') AND NOT EXISTS (
                SELECT 1 FROM student_locations AS shown WHERE shown.object_id = location_changes.object_id
                AND shown.class_id = location_changes.class_id
                AND shown.hidden_at IS NULL AND shown.owner_disabled = 0 AND shown.waiting = 0)
            """,
        ]),
        // Invitations: a teacher adding someone by email invites the address, whoever has it (or
        // nobody yet); the account with that address joins by itself. A teacher never learns
        // from the answer whether an address has an account here.
        (19, [
            """
            CREATE TABLE class_invitations (
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                email TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('teacher', 'moderator', 'student')),
                invited_at TEXT NOT NULL,
                PRIMARY KEY (class_id, email)
            )
            """,
            "CREATE INDEX class_invitations_email ON class_invitations (email)",
        ]),
    ]

    /// The default class of migration 11, created `public` when the database already holds
    /// accounts or locations; `now` is the dialect's current time as a Parse date.
    static func defaultClass(now: String) -> String {
        """
        INSERT INTO classes (id, slug, name, visibility, join_rule, invite_code, created_at)
        SELECT 'default', 'main', 'OnTheMap',
               CASE WHEN EXISTS (SELECT 1 FROM accounts) OR EXISTS (SELECT 1 FROM student_locations) THEN 'public' ELSE 'members' END,
               'open', NULL, \(now)
        """
    }

    /// The columns a change carries besides its version: the record as it is after the
    /// change (all NULL but `object_id` for a delete).
    static let changeColumns = """
        kind TEXT NOT NULL,
        object_id TEXT NOT NULL,
        unique_key TEXT, first_name TEXT, last_name TEXT, map_string TEXT, media_url TEXT,
        latitude DOUBLE PRECISION, longitude DOUBLE PRECISION, created_at TEXT, updated_at TEXT
        """

    /// Statements run after `all`'s for the same version, on SQLite only.
    static let sqliteOnly: [Int: [String]] = [
        // AUTOINCREMENT: a version is never reused, even after the log is pruned to nothing.
        // SQLite has one writer at a time, so versions are assigned in commit order.
        6: [
            "CREATE TABLE location_changes (version INTEGER PRIMARY KEY AUTOINCREMENT, \(changeColumns))",
            """
            CREATE TRIGGER student_locations_log_insert AFTER INSERT ON student_locations BEGIN
                INSERT INTO location_changes (kind, object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('created', NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_update AFTER UPDATE ON student_locations BEGIN
                INSERT INTO location_changes (kind, object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('updated', NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_delete AFTER DELETE ON student_locations BEGIN
                INSERT INTO location_changes (kind, object_id) VALUES ('deleted', OLD.object_id);
            END
            """,
        ],
        // Moderation meets the live map: a record hidden by a moderator, or by its author's
        // account being disabled, leaves every viewer's map as a `deleted` change, and comes
        // back as an `updated` one when shown again.
        7: [
            "DROP TRIGGER student_locations_log_update",
            """
            CREATE TRIGGER student_locations_log_update AFTER UPDATE ON student_locations
            WHEN NEW.hidden_at IS NULL AND NEW.owner_disabled = 0 BEGIN
                INSERT INTO location_changes (kind, object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('updated', NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_hide AFTER UPDATE ON student_locations
            WHEN NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 BEGIN
                INSERT INTO location_changes (kind, object_id) VALUES ('deleted', NEW.object_id);
            END
            """,
        ],
        // Each change names its class.
        11: [
            defaultClass(now: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"),
            "DROP TRIGGER student_locations_log_insert",
            "DROP TRIGGER student_locations_log_update",
            "DROP TRIGGER student_locations_log_delete",
            "DROP TRIGGER student_locations_log_hide",
            """
            CREATE TRIGGER student_locations_log_insert AFTER INSERT ON student_locations
            WHEN NEW.hidden_at IS NULL AND NEW.owner_disabled = 0 BEGIN
                INSERT INTO location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('created', NEW.class_id, NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_update AFTER UPDATE ON student_locations
            WHEN NEW.hidden_at IS NULL AND NEW.owner_disabled = 0 BEGIN
                INSERT INTO location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('updated', NEW.class_id, NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_delete AFTER DELETE ON student_locations BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('deleted', OLD.class_id, OLD.object_id);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_hide AFTER UPDATE ON student_locations
            WHEN NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('deleted', NEW.class_id, NEW.object_id);
            END
            """,
        ],
        // A waiting post is not on the map: logged as gone, and as created once approved.
        13: [
            "DROP TRIGGER student_locations_log_insert",
            "DROP TRIGGER student_locations_log_update",
            "DROP TRIGGER student_locations_log_hide",
            """
            CREATE TRIGGER student_locations_log_insert AFTER INSERT ON student_locations
            WHEN NEW.hidden_at IS NULL AND NEW.owner_disabled = 0 AND NEW.waiting = 0 BEGIN
                INSERT INTO location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('created', NEW.class_id, NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_update AFTER UPDATE ON student_locations
            WHEN NEW.hidden_at IS NULL AND NEW.owner_disabled = 0 AND NEW.waiting = 0 BEGIN
                INSERT INTO location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('updated', NEW.class_id, NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """,
            """
            CREATE TRIGGER student_locations_log_hide AFTER UPDATE ON student_locations
            WHEN NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0 BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('deleted', NEW.class_id, NEW.object_id);
            END
            """,
        ],
        // A record's newest change replaces its earlier ones; an edit of a post that is not on
        // the map (hidden, or its author disabled, or waiting) tells viewers nothing; ended
        // access is logged for the streams to close.
        18: [
            "DROP TRIGGER student_locations_log_hide",
            """
            CREATE TRIGGER student_locations_log_hide AFTER UPDATE ON student_locations
            WHEN (NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0)
                AND OLD.hidden_at IS NULL AND OLD.owner_disabled = 0 AND OLD.waiting = 0 BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('deleted', NEW.class_id, NEW.object_id);
            END
            """,
            """
            CREATE TRIGGER location_changes_compact AFTER INSERT ON location_changes
            WHEN NEW.kind IN ('created', 'updated', 'deleted') BEGIN
                DELETE FROM location_changes
                WHERE object_id = NEW.object_id AND version < NEW.version AND kind IN ('created', 'updated', 'deleted');
            END
            """,
            """
            CREATE TRIGGER class_members_access_ended AFTER DELETE ON class_members BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', OLD.class_id, OLD.account_key);
            END
            """,
            """
            CREATE TRIGGER sessions_access_ended AFTER DELETE ON sessions BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', '', OLD.id);
            END
            """,
            """
            CREATE TRIGGER accounts_access_ended AFTER UPDATE OF disabled_at ON accounts
            WHEN NEW.disabled_at IS NOT NULL AND OLD.disabled_at IS NULL BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', '', NEW.key);
            END
            """,
            """
            CREATE TRIGGER classes_access_ended AFTER UPDATE ON classes
            WHEN NEW.visibility IS NOT OLD.visibility OR NEW.archived_at IS NOT OLD.archived_at BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', NEW.id, '');
            END
            """,
            """
            CREATE TRIGGER classes_access_ended_delete AFTER DELETE ON classes BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', OLD.id, '');
            END
            """,
        ],
    ]

    /// Statements run after `all`'s for the same version, on PostgreSQL only.
    static let postgresOnly: [Int: [String]] = [
        // Every write to student_locations, by any server or by hand, notifies the channel
        // `changeChannelQuery` names once its transaction commits; list caches listen on it.
        3: [
            """
            CREATE FUNCTION onthemap_announce_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('otm_' || md5(TG_TABLE_SCHEMA), '');
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER student_locations_announce_change
                AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON student_locations
                FOR EACH STATEMENT EXECUTE FUNCTION onthemap_announce_location_change()
            """,
        ],
        // A sequence alone would not do: versions are taken when a row is written but become
        // visible when its transaction commits, so 12 could be seen before 11 and a reader
        // that moved on to 12 would never see 11. Each writer takes a per-schema transaction
        // lock before its version, so versions become visible in order (writes to this table
        // are serialized; students post rarely). The table is named with the trigger's own
        // schema, so a hand-made write with another search_path logs in the right place.
        6: [
            "CREATE TABLE location_changes (version BIGSERIAL PRIMARY KEY, \(changeColumns))",
            """
            CREATE FUNCTION onthemap_log_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                IF TG_OP = 'TRUNCATE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''reset'', '''')', TG_TABLE_SCHEMA);
                ELSIF TG_OP = 'DELETE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''deleted'', $1)', TG_TABLE_SCHEMA)
                        USING OLD.object_id;
                ELSE
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id, unique_key, first_name, last_name, map_string, '
                        'media_url, latitude, longitude, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
                        TG_TABLE_SCHEMA)
                        USING CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW.object_id, NEW.unique_key,
                            NEW.first_name, NEW.last_name, NEW.map_string, NEW.media_url, NEW.latitude, NEW.longitude,
                            NEW.created_at, NEW.updated_at;
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER student_locations_log_change
                AFTER INSERT OR UPDATE OR DELETE ON student_locations
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_location_change()
            """,
            // TRUNCATE has no rows to name: logged as a `reset`, which tells viewers to reload.
            """
            CREATE TRIGGER student_locations_log_truncate
                AFTER TRUNCATE ON student_locations
                FOR EACH STATEMENT EXECUTE FUNCTION onthemap_log_location_change()
            """,
        ],        // As on SQLite: hidden records leave the live map as `deleted` changes.
        7: [
            """
            CREATE OR REPLACE FUNCTION onthemap_log_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                IF TG_OP = 'TRUNCATE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''reset'', '''')', TG_TABLE_SCHEMA);
                ELSIF TG_OP = 'DELETE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''deleted'', $1)', TG_TABLE_SCHEMA)
                        USING OLD.object_id;
                ELSIF NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''deleted'', $1)', TG_TABLE_SCHEMA)
                        USING NEW.object_id;
                ELSE
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id, unique_key, first_name, last_name, map_string, '
                        'media_url, latitude, longitude, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
                        TG_TABLE_SCHEMA)
                        USING CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW.object_id, NEW.unique_key,
                            NEW.first_name, NEW.last_name, NEW.map_string, NEW.media_url, NEW.latitude, NEW.longitude,
                            NEW.created_at, NEW.updated_at;
                END IF;
                RETURN NULL;
            END
            $$
            """,
        ],
        11: [
            defaultClass(now: #"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#),
            """
            CREATE OR REPLACE FUNCTION onthemap_log_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                IF TG_OP = 'TRUNCATE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''reset'', '''', '''')', TG_TABLE_SCHEMA);
                ELSIF TG_OP = 'DELETE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                        USING OLD.class_id, OLD.object_id;
                ELSIF NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 THEN
                    IF TG_OP = 'UPDATE' THEN
                        EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                            USING NEW.class_id, NEW.object_id;
                    END IF;
                ELSE
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, '
                        'media_url, latitude, longitude, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
                        TG_TABLE_SCHEMA)
                        USING CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW.class_id, NEW.object_id, NEW.unique_key,
                            NEW.first_name, NEW.last_name, NEW.map_string, NEW.media_url, NEW.latitude, NEW.longitude,
                            NEW.created_at, NEW.updated_at;
                END IF;
                RETURN NULL;
            END
            $$
            """,
        ],
        // A waiting post is not on the map (see the SQLite triggers of 13).
        13: [
            """
            CREATE OR REPLACE FUNCTION onthemap_log_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                IF TG_OP = 'TRUNCATE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''reset'', '''', '''')', TG_TABLE_SCHEMA);
                ELSIF TG_OP = 'DELETE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                        USING OLD.class_id, OLD.object_id;
                ELSIF NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0 THEN
                    IF TG_OP = 'UPDATE' THEN
                        EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                            USING NEW.class_id, NEW.object_id;
                    END IF;
                ELSE
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, '
                        'media_url, latitude, longitude, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
                        TG_TABLE_SCHEMA)
                        USING CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW.class_id, NEW.object_id, NEW.unique_key,
                            NEW.first_name, NEW.last_name, NEW.map_string, NEW.media_url, NEW.latitude, NEW.longitude,
                            NEW.created_at, NEW.updated_at;
                END IF;
                RETURN NULL;
            END
            $$
            """,
        ],
        // As on SQLite (18): a record's newest change replaces its earlier ones, edits of posts
        // not on the map are not logged, and ended access is logged, each under the log's lock.
        18: [
            """
            CREATE OR REPLACE FUNCTION onthemap_log_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'UPDATE' AND (NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0)
                    AND (OLD.hidden_at IS NOT NULL OR OLD.owner_disabled <> 0 OR OLD.waiting <> 0) THEN
                    RETURN NULL;
                END IF;
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                IF TG_OP = 'TRUNCATE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''reset'', '''', '''')', TG_TABLE_SCHEMA);
                ELSIF TG_OP = 'DELETE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                        USING OLD.class_id, OLD.object_id;
                ELSIF NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0 THEN
                    IF TG_OP = 'UPDATE' THEN
                        EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                            USING NEW.class_id, NEW.object_id;
                    END IF;
                ELSE
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, '
                        'media_url, latitude, longitude, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
                        TG_TABLE_SCHEMA)
                        USING CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW.class_id, NEW.object_id, NEW.unique_key,
                            NEW.first_name, NEW.last_name, NEW.map_string, NEW.media_url, NEW.latitude, NEW.longitude,
                            NEW.created_at, NEW.updated_at;
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE FUNCTION onthemap_compact_location_changes() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                EXECUTE format('DELETE FROM %I.location_changes WHERE object_id = $1 AND version < $2 '
                    'AND kind IN (''created'', ''updated'', ''deleted'')', TG_TABLE_SCHEMA)
                    USING NEW.object_id, NEW.version;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER location_changes_compact AFTER INSERT ON location_changes
                FOR EACH ROW WHEN (NEW.kind IN ('created', 'updated', 'deleted'))
                EXECUTE FUNCTION onthemap_compact_location_changes()
            """,
            """
            CREATE FUNCTION onthemap_log_access_ended() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                ended_class varchar := '';
                ended_account varchar := '';
            BEGIN
                IF TG_TABLE_NAME = 'class_members' THEN
                    ended_class := OLD.class_id;
                    ended_account := OLD.account_key;
                ELSIF TG_TABLE_NAME = 'sessions' THEN
                    ended_account := OLD.id;
                ELSIF TG_TABLE_NAME = 'accounts' THEN
                    ended_account := NEW.key;
                ELSIF TG_OP = 'DELETE' THEN
                    ended_class := OLD.id;
                ELSE
                    ended_class := NEW.id;
                END IF;
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''ended'', $1, $2)', TG_TABLE_SCHEMA)
                    USING ended_class, ended_account;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER class_members_access_ended AFTER DELETE ON class_members
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER sessions_access_ended AFTER DELETE ON sessions
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER accounts_access_ended AFTER UPDATE OF disabled_at ON accounts
                FOR EACH ROW WHEN (NEW.disabled_at IS NOT NULL AND OLD.disabled_at IS NULL)
                EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER classes_access_ended AFTER UPDATE ON classes
                FOR EACH ROW WHEN (NEW.visibility IS DISTINCT FROM OLD.visibility OR NEW.archived_at IS DISTINCT FROM OLD.archived_at)
                EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER classes_access_ended_delete AFTER DELETE ON classes
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_access_ended()
            """,
        ],
    ]

    /// The notification channel for this connection's schema (a channel name may have at
    /// most 63 bytes; a schema name alone may too, so it is hashed).
    static let changeChannelQuery: SQLQueryString = "SELECT 'otm_' || md5(current_schema()) AS channel"
    /// The channel album changes are announced on, one per schema like the one above.
    static let albumChannelQuery: SQLQueryString = "SELECT 'otma_' || md5(current_schema()) AS channel"

    /// On PostgreSQL text columns get the "C" collation, so ordering and `$lt`/`$gt` compare
    /// by code point as SQLite and Parse do, whatever locale the database was created with.
    static func statement(_ sql: String, forPostgres: Bool) -> SQLQueryString {
        "\(unsafeRaw: forPostgres ? sql.replacingOccurrences(of: " TEXT", with: " TEXT COLLATE \"C\"") : sql)"
    }

    /// Applies what is pending in one transaction on one connection. The transaction first
    /// takes the database's write lock (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: an advisory
    /// lock), so servers starting together on a new database take turns and the second
    /// finds the work done.
    /// `schema` (PostgreSQL only) is created first when missing.
    /// `through`: stop after this version (tests build a database as an older version left it).
    static func run(on database: any SQLDatabase, schema: String? = nil, through last: Int = Int.max) async throws {
        let postgres = database.dialect.name == "postgresql"
        try await database.raw(postgres ? "BEGIN" : "BEGIN IMMEDIATE").run()
        do {
            if postgres {
                try await database.raw("SELECT pg_advisory_xact_lock(\(literal: advisoryLockKey))").run()
                if let schema { try await database.raw("CREATE SCHEMA IF NOT EXISTS \(ident: schema)").run() }
            }
            try await database.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)").run()
            let applied = Set(try await database.raw("SELECT version FROM schema_migrations").all().map {
                try $0.decode(column: "version", as: Int.self)
            })
            for migration in all where !applied.contains(migration.version) && migration.version <= last {
                do {
                    let dialectOnly = (postgres ? postgresOnly : sqliteOnly)[migration.version] ?? []
                    for sql in migration.statements + dialectOnly {
                        try await database.raw(statement(sql, forPostgres: postgres)).run()
                    }
                    let now = ParseDate.string(from: .now)
                    try await database.raw("INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: migration.version), \(bind: now))").run()
                } catch {
                    throw StorageError.migrationFailed("version \(migration.version): \(String(reflecting: error))")
                }
            }
            try await database.raw("COMMIT").run()
        } catch {
            try? await database.raw("ROLLBACK").run()
            throw error
        }
    }

    /// Any fixed number, the same for every OnTheMap server.
    private static let advisoryLockKey = 0x4F6E_5468_654D_6170
}
