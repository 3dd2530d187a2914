import Foundation
import OnTheMapModels
import SQLKit

/// Travel pins and photo albums on SQL. Rows first, files second: a photo row is deleted
/// (or a replaced album committed) before its file goes, so a crash in between leaves a
/// file nobody owns, never a row pointing at nothing; `sweepPhotoFiles` deletes such files.
/// (`SQLStore` conforms to `TravelRepository` through `OnTheMapStore`.)
extension SQLStore {
    // MARK: Pins

    public func createPin(_ pin: Pin) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO pins (id, owner_key, latitude, longitude, place_name, created_at, updated_at)
                VALUES (\(bind: pin.id), \(bind: pin.ownerKey), \(bind: pin.latitude), \(bind: pin.longitude),
                        \(bind: pin.placeName), \(bind: Self.text(pin.createdAt)), \(bind: Self.text(pin.updatedAt)))
                """
            ).run()
        }
    }

    public func pins(ownerKey: String) async throws -> [Pin] {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM pins WHERE owner_key = \(bind: ownerKey) ORDER BY created_at, id").all().map(Self.pin(from:))
        }
    }

    public func countPins(ownerKey: String) async throws -> Int {
        try await withDatabase { db in
            try await db.raw("SELECT COUNT(*) AS n FROM pins WHERE owner_key = \(bind: ownerKey)").first()?.decode(
                column: "n", as: Int.self) ?? 0
        }
    }

    public func pin(id: String) async throws -> Pin? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM pins WHERE id = \(bind: id)").first().map(Self.pin(from:))
        }
    }

    public func movePin(id: String, latitude: Double, longitude: Double, placeName: String, updatedAt: Date) async throws -> Pin? {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE pins SET latitude = \(bind: latitude), longitude = \(bind: longitude), place_name = \(bind: placeName),
                                updated_at = \(bind: Self.text(updatedAt))
                WHERE id = \(bind: id) RETURNING *
                """
            ).first().map(Self.pin(from:))
        }
    }

    @discardableResult
    public func deletePin(id: String) async throws -> Bool {
        // Photos and album state go with the pin (ON DELETE CASCADE); then the folder.
        let deleted = try await touchesARow("DELETE FROM pins WHERE id = \(bind: id) RETURNING id")
        if deleted { await photoStorage.removePin(pinID: id) }
        return deleted
    }

    // MARK: Photos

    public func photos(pinID: String) async throws -> [Photo] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM photos WHERE pin_id = \(bind: pinID)
                  AND collection = COALESCE((SELECT collection FROM album_states WHERE pin_id = \(bind: pinID)), collection)
                ORDER BY position, id
                """
            ).all().map(Self.photo(from:))
        }
    }

    public func photo(id: String) async throws -> Photo? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM photos WHERE id = \(bind: id)").first().map(Self.photo(from:))
        }
    }

    public func pendingPhotos() async throws -> [Photo] {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM photos WHERE state = 'pending' ORDER BY created_at, pin_id, position").all().map(
                Self.photo(from:))
        }
    }

    @discardableResult
    public func deletePhoto(id: String) async throws -> Photo? {
        let deleted = try await withDatabase { db in
            try await db.raw("DELETE FROM photos WHERE id = \(bind: id) RETURNING *").first().map(Self.photo(from:))
        }
        if let path = deleted?.filePath { await photoStorage.removeFile(relativePath: path) }
        return deleted
    }

    // MARK: Albums

    public func albumState(pinID: String) async throws -> AlbumState? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM album_states WHERE pin_id = \(bind: pinID)").first().map(Self.albumState(from:))
        }
    }

    public func albumStates(status: AlbumStatus) async throws -> [AlbumState] {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM album_states WHERE status = \(bind: status.rawValue) ORDER BY updated_at, pin_id").all().map(
                Self.albumState(from:))
        }
    }

    @discardableResult
    public func saveAlbumState(_ state: AlbumState) async throws -> Bool {
        try await withDatabase { db in
            try await Self.upsert(state, on: db)
        }
    }

    public func settleAlbum(pinID: String, at date: Date) async throws -> AlbumState? {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE album_states SET status = 'complete', updated_at = \(bind: Self.text(date))
                WHERE pin_id = \(bind: pinID) AND status = 'downloading'
                  AND NOT EXISTS (SELECT 1 FROM photos WHERE pin_id = \(bind: pinID) AND state = 'pending')
                """
            ).run()
            return try await db.raw(
                """
                SELECT * FROM album_states WHERE pin_id = \(bind: pinID) AND status IN ('complete', 'failed')
                  AND NOT EXISTS (SELECT 1 FROM photos WHERE pin_id = \(bind: pinID) AND state = 'pending')
                """
            ).first().map(Self.albumState(from:))
        }
    }

    public func replaceAlbum(pinID: String, with photos: [Photo], state: AlbumState) async throws -> [Photo]? {
        switch try await replace(pinID: pinID, with: photos, state: state, if: nil) {
        case .replaced(let removed): removed
        case .superseded, .pinGone: nil
        }
    }

    public func replaceAlbum(pinID: String, with photos: [Photo], state: AlbumState, if condition: AlbumCondition) async throws
        -> AlbumReplacement
    {
        try await replace(pinID: pinID, with: photos, state: state, if: condition)
    }

    /// One transaction: the state switch (conditional, when `condition` is given) makes the
    /// new photos the album and the old ones go, so readers see one album or the other.
    private func replace(pinID: String, with photos: [Photo], state: AlbumState, if condition: AlbumCondition?) async throws
        -> AlbumReplacement
    {
        let outcome: AlbumReplacement = try await withTransaction { db in
            guard try await db.raw("SELECT 1 AS x FROM pins WHERE id = \(bind: pinID)").first() != nil else { return .pinGone }
            if let condition {
                let switched = try await db.raw(
                    """
                    UPDATE album_states SET provider = \(bind: state.provider), collection = \(bind: state.collection), page = \(bind: state.page),
                        pages = \(bind: state.pages), total = \(bind: state.total), status = \(bind: state.status.rawValue),
                        error_code = \(bind: state.errorCode), error_message = \(bind: state.errorMessage), updated_at = \(bind: Self.text(state.updatedAt))
                    WHERE pin_id = \(bind: pinID) AND collection = \(bind: condition.collection)
                      AND EXISTS (SELECT 1 FROM pins WHERE id = \(bind: pinID) AND latitude = \(bind: condition.latitude) AND longitude = \(bind: condition.longitude))
                    RETURNING pin_id
                    """
                ).all()
                if switched.isEmpty { return .superseded }
            } else {
                guard try await Self.upsert(state, on: db) else { return .pinGone }
            }
            for batch in stride(from: 0, to: photos.count, by: 50) {
                try await Self.insert(Array(photos[batch..<min(batch + 50, photos.count)]), on: db)
            }
            return .replaced(
                try await db.raw(
                    """
                    DELETE FROM photos WHERE pin_id = \(bind: pinID) AND collection <> \(bind: state.collection) RETURNING *
                    """
                ).all().map(Self.photo(from:)))
        }
        if case .replaced(let removed) = outcome {
            for photo in removed {
                if let path = photo.filePath { await photoStorage.removeFile(relativePath: path) }
            }
        }
        return outcome
    }

    @discardableResult
    public func markAlbumSearching(pinID: String, provider: String, at date: Date) async throws -> Bool {
        try await touchesARow(
            """
            INSERT INTO album_states (pin_id, provider, collection, page, pages, total, status, updated_at)
            SELECT \(bind: pinID), \(bind: provider), 0, 0, 0, 0, 'searching', \(bind: Self.text(date))
            WHERE EXISTS (SELECT 1 FROM pins WHERE id = \(bind: pinID))
            ON CONFLICT (pin_id) DO UPDATE SET status = 'searching', error_code = NULL, error_message = NULL, updated_at = excluded.updated_at
            RETURNING pin_id
            """
        )
    }

    public func markAlbumFailed(pinID: String, code: String, message: String, at date: Date) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE album_states SET status = 'failed', error_code = \(bind: code), error_message = \(bind: message), updated_at = \(bind: Self.text(date))
                WHERE pin_id = \(bind: pinID)
                """
            ).run()
        }
    }

    public func markPhotoReady(id: String, image: StoredImage, at date: Date) async throws -> Photo? {
        let updated = try await withDatabase { db in
            try await db.raw(
                """
                UPDATE photos SET state = 'ready', file_path = \(bind: image.filePath), content_type = \(bind: image.contentType),
                                  byte_count = \(bind: image.byteCount), content_hash = \(bind: image.contentHash),
                                  failure_reason = NULL, claim_owner = NULL, claim_expires_at = NULL, updated_at = \(bind: Self.text(date))
                WHERE id = \(bind: id) AND state = 'pending' RETURNING *
                """
            ).first().map(Self.photo(from:))
        }
        // Deleted or replaced while downloading: the file has no owner.
        if updated == nil {
            // Unless another server took the photo over and stored the same image meanwhile.
            let taken = try? await photo(id: id)
            if taken?.filePath != image.filePath {
                await photoStorage.removeFile(relativePath: image.filePath)
                if let pinID = image.filePath.split(separator: "/").dropFirst().first {
                    await photoStorage.removePinIfEmpty(pinID: String(pinID))
                }
            }
        }
        return updated
    }

    public func markPhotoFailed(id: String, reason: String, at date: Date) async throws -> Photo? {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE photos SET state = 'failed', failure_reason = \(bind: reason), claim_owner = NULL, claim_expires_at = NULL,
                                  updated_at = \(bind: Self.text(date))
                WHERE id = \(bind: id) AND state = 'pending' RETURNING *
                """
            ).first().map(Self.photo(from:))
        }
    }

    public func markPhotoPending(id: String, at date: Date) async throws -> Photo? {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE photos SET state = 'pending', failure_reason = NULL, claim_owner = NULL, claim_expires_at = NULL,
                                  updated_at = \(bind: Self.text(date))
                WHERE id = \(bind: id) AND state = 'failed' RETURNING *
                """
            ).first().map(Self.photo(from:))
        }
    }

    // MARK: Sweep

    public func sweepPhotoFiles(abandonedBefore: Date) async throws -> PhotoSweepReport {
        var report = PhotoSweepReport()
        let cutoff = Self.text(abandonedBefore)
        // Photos of a collection the album no longer shows: a replacement a crash interrupted
        // (younger ones may be a replacement another server is making right now).
        let stale = try await withDatabase { db in
            try await db.raw(
                """
                DELETE FROM photos WHERE collection <> COALESCE(
                    (SELECT collection FROM album_states WHERE album_states.pin_id = photos.pin_id), photos.collection)
                  AND updated_at < \(bind: cutoff)
                RETURNING *
                """
            ).all().map(Self.photo(from:))
        }
        report.staleRowsDeleted = stale.count
        // Rows first, then the store: an image is always stored before its row says ready,
        // so a row read here whose image the listing lacks really lost it.
        let kept: [(id: String, path: String, size: Int?)] = try await withDatabase { db in
            try await db.raw("SELECT id, file_path, byte_count FROM photos WHERE file_path IS NOT NULL").all().map {
                (
                    try $0.decode(column: "id", as: String.self), try $0.decode(column: "file_path", as: String.self),
                    try $0.decode(column: "byte_count", as: Int?.self)
                )
            }
        }
        let inventory = try await photoStorage.inventory()
        let sizes = Dictionary(inventory.files.map { ($0.path, $0.size) }, uniquingKeysWith: { first, _ in first })
        var owned = Set<String>()
        let now = Self.text(Date())
        for row in kept {
            if let found = sizes[row.path], let size = found, row.size == nil || row.size == size {
                owned.insert(row.path)
                continue
            }
            // Missing, or cut short by a crash before the disk caught up: download again on retry.
            try await withDatabase { db in
                try await db.raw(
                    """
                    UPDATE photos SET state = 'failed', file_path = NULL, content_type = NULL, byte_count = NULL, content_hash = NULL,
                                      failure_reason = 'The kept image file was missing; retry to download it again.',
                                      updated_at = \(bind: now)
                    WHERE id = \(bind: row.id) AND file_path = \(bind: row.path)
                    """
                ).run()
            }
            report.rowsMarkedFailed += 1
        }
        let shared = photoStorage.isShared
        func abandoned(_ entry: PhotoInventory.Entry) -> Bool {
            !shared || (entry.modified.map { $0 < abandonedBefore } ?? false)
        }
        for file in inventory.files where !owned.contains(file.path) && abandoned(file) {
            await photoStorage.removeEntry(file)
            report.filesDeleted += 1
        }
        let ownerFolders = Set(owned.compactMap { $0.split(separator: "/").dropFirst().first.map(String.init) })
        for folder in inventory.folders where !ownerFolders.contains(folder.pinID ?? "") && abandoned(folder) {
            await photoStorage.removeEntry(folder)
            report.foldersDeleted += 1
        }
        return report
    }

    // MARK: Several servers

    public func claimPhoto(id: String, owner: String, until: Date, now: Date) async throws -> Photo? {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE photos SET claim_owner = \(bind: owner), claim_expires_at = \(bind: Self.text(until))
                WHERE id = \(bind: id) AND state = 'pending'
                  AND (claim_owner IS NULL OR claim_owner = \(bind: owner) OR claim_expires_at < \(bind: Self.text(now)))
                RETURNING *
                """
            ).first().map(Self.photo(from:))
        }
    }

    public func renewClaims(ids: [String], owner: String, until: Date) async throws {
        guard !ids.isEmpty else { return }
        try await withDatabase { db in
            for batch in stride(from: 0, to: ids.count, by: 100) {
                let list = SQLList(ids[batch..<min(batch + 100, ids.count)].map { SQLBind($0) })
                try await db.raw(
                    """
                    UPDATE photos SET claim_expires_at = \(bind: Self.text(until))
                    WHERE id IN (\(list)) AND claim_owner = \(bind: owner) AND state = 'pending'
                    """
                ).run()
            }
        }
    }

    public func releaseClaim(id: String, owner: String) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE photos SET claim_owner = NULL, claim_expires_at = NULL
                WHERE id = \(bind: id) AND claim_owner = \(bind: owner) AND state = 'pending'
                """
            ).run()
        }
    }

    public func abandonedPhotos(now: Date, unclaimedBefore: Date, limit: Int) async throws -> [Photo] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM photos WHERE state = 'pending'
                  AND ((claim_owner IS NOT NULL AND claim_expires_at < \(bind: Self.text(now)))
                       OR (claim_owner IS NULL AND updated_at < \(bind: Self.text(unclaimedBefore))))
                ORDER BY created_at, pin_id, position LIMIT \(bind: limit)
                """
            ).all().map(Self.photo(from:))
        }
    }

    public func staleSearches(before: Date, limit: Int) async throws -> [AlbumState] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM album_states WHERE status = 'searching' AND updated_at < \(bind: Self.text(before))
                ORDER BY updated_at, pin_id LIMIT \(bind: limit)
                """
            ).all().map(Self.albumState(from:))
        }
    }

    public func takeStaleSearch(pinID: String, before: Date, now: Date) async throws -> Bool {
        try await touchesARow(
            """
            UPDATE album_states SET updated_at = \(bind: Self.text(now))
            WHERE pin_id = \(bind: pinID) AND status = 'searching' AND updated_at < \(bind: Self.text(before))
            RETURNING pin_id
            """
        )
    }

    public func countUse(name: String, windowStart: Date, limit: Int) async throws -> Bool {
        guard limit > 0 else { return false }
        // One statement: a new window starts at 1; an existing one grows only below the limit.
        return try await touchesARow(
            """
            INSERT INTO usage_counters (name, window_start, count) VALUES (\(bind: name), \(bind: Self.text(windowStart)), 1)
            ON CONFLICT (name, window_start) DO UPDATE SET count = usage_counters.count + 1
            WHERE usage_counters.count < \(bind: limit)
            RETURNING count
            """
        )
    }

    public func pruneUsage(before date: Date) async throws {
        try await withDatabase { db in
            try await db.raw("DELETE FROM usage_counters WHERE window_start < \(bind: Self.text(date))").run()
        }
    }

    // MARK: Rows

    /// One statement: inserts or updates the state only while the pin exists.
    private static func upsert(_ state: AlbumState, on db: any SQLDatabase) async throws -> Bool {
        try await !db.raw(
            """
            INSERT INTO album_states (pin_id, provider, collection, page, pages, total, status, error_code, error_message, updated_at)
            SELECT \(bind: state.pinID), \(bind: state.provider), \(bind: state.collection), \(bind: state.page), \(bind: state.pages),
                   \(bind: state.total), \(bind: state.status.rawValue), \(bind: state.errorCode), \(bind: state.errorMessage),
                   \(bind: text(state.updatedAt))
            WHERE EXISTS (SELECT 1 FROM pins WHERE id = \(bind: state.pinID))
            ON CONFLICT (pin_id) DO UPDATE SET
                provider = excluded.provider, collection = excluded.collection, page = excluded.page, pages = excluded.pages,
                total = excluded.total, status = excluded.status, error_code = excluded.error_code,
                error_message = excluded.error_message, updated_at = excluded.updated_at
            RETURNING pin_id
            """
        ).all().isEmpty
    }

    private static func insert(_ photos: [Photo], on db: any SQLDatabase) async throws {
        guard !photos.isEmpty else { return }
        let rows: [SQLQueryString] = photos.map { photo in
            """
            (\(bind: photo.id), \(bind: photo.pinID), \(bind: photo.collection), \(bind: photo.position), \(bind: photo.provider),
             \(bind: photo.remoteID), \(bind: photo.remoteURL), \(bind: photo.title), \(bind: photo.author),
             \(bind: photo.license), \(bind: photo.attributionURL), \(bind: photo.filePath), \(bind: photo.contentType), \(bind: photo.byteCount),
             \(bind: photo.contentHash), \(bind: photo.state.rawValue), \(bind: photo.failureReason),
             \(bind: text(photo.createdAt)), \(bind: text(photo.updatedAt)))
            """
        }
        let statement: SQLQueryString = """
            INSERT INTO photos (id, pin_id, collection, position, provider, remote_id, remote_url, title, author, license, attribution_url,
                                file_path, content_type, byte_count, content_hash, state, failure_reason, created_at, updated_at)
            VALUES
            """ + rows.joined(separator: ", ")
        try await db.raw(statement).run()
    }

    private static func text(_ date: Date) -> String { ParseDate.string(from: date) }
    private static func date(_ text: String) -> Date { ParseDate.date(from: text) ?? .distantPast }

    private static func pin(from row: any SQLRow) throws -> Pin {
        Pin(
            id: try row.decode(column: "id", as: String.self),
            ownerKey: try row.decode(column: "owner_key", as: String.self),
            latitude: try row.decode(column: "latitude", as: Double.self),
            longitude: try row.decode(column: "longitude", as: Double.self),
            placeName: try row.decode(column: "place_name", as: String.self),
            createdAt: date(try row.decode(column: "created_at", as: String.self)),
            updatedAt: date(try row.decode(column: "updated_at", as: String.self))
        )
    }

    private static func photo(from row: any SQLRow) throws -> Photo {
        Photo(
            id: try row.decode(column: "id", as: String.self),
            pinID: try row.decode(column: "pin_id", as: String.self),
            collection: try row.decode(column: "collection", as: Int.self),
            position: try row.decode(column: "position", as: Int.self),
            provider: try row.decode(column: "provider", as: String.self),
            remoteID: try row.decode(column: "remote_id", as: String.self),
            remoteURL: try row.decode(column: "remote_url", as: String.self),
            title: try row.decode(column: "title", as: String.self),
            author: try row.decode(column: "author", as: String.self),
            license: try row.decode(column: "license", as: String?.self),
            attributionURL: try row.decode(column: "attribution_url", as: String?.self),
            filePath: try row.decode(column: "file_path", as: String?.self),
            contentType: try row.decode(column: "content_type", as: String?.self),
            byteCount: try row.decode(column: "byte_count", as: Int?.self),
            contentHash: try row.decode(column: "content_hash", as: String?.self),
            state: PhotoState(rawValue: try row.decode(column: "state", as: String.self)) ?? .failed,
            failureReason: try row.decode(column: "failure_reason", as: String?.self),
            createdAt: date(try row.decode(column: "created_at", as: String.self)),
            updatedAt: date(try row.decode(column: "updated_at", as: String.self))
        )
    }

    private static func albumState(from row: any SQLRow) throws -> AlbumState {
        AlbumState(
            pinID: try row.decode(column: "pin_id", as: String.self),
            provider: try row.decode(column: "provider", as: String.self),
            collection: try row.decode(column: "collection", as: Int.self),
            page: try row.decode(column: "page", as: Int.self),
            pages: try row.decode(column: "pages", as: Int.self),
            total: try row.decode(column: "total", as: Int.self),
            status: AlbumStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .failed,
            errorCode: try row.decode(column: "error_code", as: String?.self),
            errorMessage: try row.decode(column: "error_message", as: String?.self),
            updatedAt: date(try row.decode(column: "updated_at", as: String.self))
        )
    }
}
