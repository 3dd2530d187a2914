import ArgumentParser
import Foundation
import OnTheMapModels
import OnTheMapServer
import Storage

/// `onthemap backup --to FILE`: a consistent copy of the SQLite database, taken while the
/// server runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database to a new file, consistently, while the server runs.",
        discussion: "PostgreSQL databases are backed up with pg_dump. Photo files live in <data-dir>/photos: copy that folder too."
    )

    @Option(help: "The backup file to create (must not exist).") var to: String
    @OptionGroup var database: HostDatabaseOptions

    func run() async throws {
        guard database.sqlitePath != nil else { throw DatabaseBackup.Failure.postgres }
        let target = URL(fileURLWithPath: to).path
        let counts = try await withHostStore(database) { store in
            try await DatabaseBackup.backup(store, to: target)
            return try await DatabaseBackup.counts(store)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        print("Backed up to \(target) (\(size) bytes; about \(counts.accounts) accounts, \(counts.locations) student locations).")
    }
}

/// `onthemap restore --from FILE`: puts a backup in place of the SQLite database.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the SQLite database with a backup. Stop the server first.",
        discussion: "Refuses to replace a database that holds accounts or locations unless --force. PostgreSQL: use pg_restore."
    )

    @Option(help: "The backup file made by `onthemap backup`.") var from: String
    @Flag(help: "Replace a database that holds data.") var force = false
    @OptionGroup var database: HostDatabaseOptions

    func run() async throws {
        guard let path = database.sqlitePath else { throw DatabaseBackup.Failure.postgres }
        let restored = try await DatabaseBackup.restore(
            from: URL(fileURLWithPath: from).path, to: path, force: force, logger: HostDatabaseOptions.quietLogger)
        print("Restored \(restored.accounts) accounts and \(restored.locations) student locations into \(path).")
    }
}

/// `onthemap export --format csv|geojson`: the student map as others can read it.
struct ExportCommand: AsyncParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, geojson }

    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a class's map (every visible location, newest first) as CSV or GeoJSON.",
        discussion: "CSV text cells starting with = + - @ get a leading ' so spreadsheets show them as text."
    )

    @Option(help: "csv or geojson.") var format: Format
    @Option(help: "File to write (default: standard output).") var to: String?
    @Option(
        name: .customLong("class"), help: ArgumentHelp("The class whose map is written. [env: ONTHEMAP_DEFAULT_CLASS]", valueName: "slug"))
    var classSlug = hostDefaultClass
    @OptionGroup var database: HostDatabaseOptions

    func run() async throws {
        let records = try await withHostStore(database) { store in
            let mapClass = try await refusalsAsValidation { try await ClassHostTools.find(classSlug, store: store) }
            var all: [StudentInformation] = []
            let page = 1000
            while true {
                let batch = try await store.locations(
                    LocationQuery(
                        sort: [LocationSort(.updatedAt, descending: true)], limit: page, skip: all.count), in: mapClass.id, author: nil)
                all += batch
                if batch.count < page { return all }
            }
        }
        let text =
            switch format {
            case .csv: MapExport.csv(records)
            case .geojson: try MapExport.geoJSON(records)
            }
        if let to {
            try Data(text.utf8).write(to: URL(fileURLWithPath: to), options: .atomic)
            FileHandle.standardError.write(Data("Wrote \(records.count) locations to \(to).\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}

enum MapExport {
    static let columns = [
        "objectId", "uniqueKey", "firstName", "lastName", "mapString", "mediaURL", "latitude", "longitude", "createdAt", "updatedAt",
    ]

    /// RFC 4180: every cell quoted, quotes doubled, CRLF line ends.
    static func csv(_ records: [StudentInformation]) -> String {
        func cell(_ text: String) -> String {
            // A cell a spreadsheet would run as a formula is shown as text instead.
            let safe = text.first.map { "=+-@\t\r".contains($0) } == true ? "'" + text : text
            return "\"" + safe.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var lines = [columns.joined(separator: ",")]
        for r in records {
            lines.append(
                [
                    cell(r.objectId), cell(r.uniqueKey), cell(r.firstName), cell(r.lastName), cell(r.mapString),
                    cell(r.mediaURL), String(r.latitude), String(r.longitude), cell(r.createdAt), cell(r.updatedAt),
                ]
                .joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A FeatureCollection of points ([longitude, latitude], as GeoJSON orders them).
    static func geoJSON(_ records: [StudentInformation]) throws -> String {
        let features: [[String: Any]] = records.map { r in
            [
                "type": "Feature",
                "id": r.objectId,
                "geometry": ["type": "Point", "coordinates": [r.longitude, r.latitude]],
                "properties": [
                    "uniqueKey": r.uniqueKey, "firstName": r.firstName, "lastName": r.lastName, "mapString": r.mapString,
                    "mediaURL": r.mediaURL, "createdAt": r.createdAt, "updatedAt": r.updatedAt,
                ],
            ]
        }
        let data = try JSONSerialization.data(
            withJSONObject: ["type": "FeatureCollection", "features": features],
            options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
