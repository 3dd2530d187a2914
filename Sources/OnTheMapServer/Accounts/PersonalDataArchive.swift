import Foundation
import Localization
import Storage
import ZIPFoundation

/// "Download my data" as a zip anyone can open (`GET /api/account/data.zip`), everything in
/// one folder: `index.html`, a short page in the reader's language (the account, classes and
/// roles, where the student is on each map, Travel pins with their photos), the photos as
/// image files under `photos/`, and for programs `my-data.json` (the JSON download) and
/// `my-locations.geojson`.
enum PersonalDataArchive {
    static let fileName = "onthemap-my-data.zip"
    static let folder = "onthemap-my-data"

    /// One stored photo image of a Travel pin.
    struct Image {
        let pinID: String
        let photo: Photo
        let data: Data

        /// Its name in the archive: `photos/<pin>-<photo>.<ext>`.
        var path: String {
            let fromType: String? =
                switch photo.contentType {
                case "image/png": "png"
                case "image/webp": "webp"
                case "image/gif": "gif"
                case "image/jpeg": "jpg"
                default: nil
                }
            let fromPath = photo.filePath.map { ($0 as NSString).pathExtension }.flatMap { $0.isEmpty ? nil : $0 }
            let ext = fromType ?? fromPath ?? "jpg"
            return "photos/\(safe(pinID))-\(safe(photo.id)).\(ext)"
        }

        private func safe(_ text: String) -> String {
            String(text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }.prefix(64))
        }
    }

    static func make(
        account: Account, gathered: PersonalDataController.Gathered, images: [Image], language: Language, now: Date
    ) throws -> Data {
        let json = try JSONSerialization.data(
            withJSONObject: gathered.document, options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])
        let geojson = try JSONSerialization.data(
            withJSONObject: gathered.document["locations_geojson"] ?? [:], options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])
        let page = Data(html(account: account, gathered: gathered, images: images, language: language, now: now).utf8)
        let archive = try Archive(data: Data(), accessMode: .create)
        func add(_ path: String, _ data: Data, compressed: Bool = true) throws {
            try archive.addEntry(
                with: "\(folder)/\(path)", type: .file, uncompressedSize: Int64(data.count), modificationDate: now,
                compressionMethod: compressed ? .deflate : .none
            ) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("index.html", page)
        try add("my-data.json", json)
        try add("my-locations.geojson", geojson)
        // Images are compressed already.
        for image in images { try add(image.path, image.data, compressed: false) }
        guard let data = archive.data else { throw CocoaError(.fileWriteUnknown) }
        return data
    }

    static func html(account: Account, gathered: PersonalDataController.Gathered, images: [Image], language: Language, now: Date)
        -> String
    {
        let say = Translator(language)
        func text(_ key: String, _ arguments: [String: String] = [:]) -> String {
            escape(say(key, arguments.mapValues { .text($0) }))
        }
        let locale = Locale(identifier: language.tag)
        func dayText(_ date: Date) -> String { date.formatted(.dateTime.year().month(.wide).day().locale(locale)) }
        func day(_ date: Date) -> String { escape(dayText(date)) }
        let name = "\(account.firstName) \(account.lastName)".trimmingCharacters(in: .whitespaces)
        var body = ""
        body += "<h1>\(text("myData.page.title"))</h1>\n"
        body += "<p>\(text("myData.page.intro", ["date": dayText(now)]))</p>\n"

        body += "<h2>\(text("myData.page.account"))</h2>\n<dl>\n"
        body += "<dt>\(text("myData.page.name"))</dt><dd dir=\"auto\">\(escape(name))</dd>\n"
        body += "<dt>\(text("myData.page.email"))</dt><dd dir=\"ltr\">\(escape(account.email))</dd>\n"
        body += "<dt>\(text("myData.page.since"))</dt><dd>\(day(account.createdAt))</dd>\n</dl>\n"

        let roleKeys = [
            "teacher": "myData.page.role.teacher", "moderator": "myData.page.role.moderator", "student": "myData.page.role.student",
        ]
        body += "<h2>\(text("myData.page.classes"))</h2>\n"
        if gathered.classes.isEmpty {
            body += "<p>\(text("myData.page.noClasses"))</p>\n"
        } else {
            body += "<ul>\n"
            for mapClass in gathered.classes {
                let role = roleKeys[mapClass.role].map { text($0) } ?? escape(mapClass.role)
                body += "<li><bdi>\(escape(mapClass.name))</bdi> — \(role)</li>\n"
            }
            body += "</ul>\n"
        }

        body += "<h2>\(text("myData.page.where"))</h2>\n"
        if gathered.locations.isEmpty {
            body += "<p>\(text("myData.page.notOnMap"))</p>\n"
        } else {
            let classNames = Dictionary(gathered.classes.map { ($0.slug, $0.name) }, uniquingKeysWith: { first, _ in first })
            body += "<ul>\n"
            for owned in gathered.locations {
                let record = owned.record
                var line = "<bdi>\(escape(classNames[owned.classSlug] ?? owned.classSlug))</bdi>: <bdi>\(escape(record.mapString))</bdi>"
                line += " (\(String(format: "%.4f, %.4f", record.latitude, record.longitude)))"
                if let url = URL(string: record.mediaURL), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                    line += " · <a href=\"\(escape(record.mediaURL))\" dir=\"ltr\">\(escape(record.mediaURL))</a>"
                }
                if let reason = owned.hiddenReason { line += " — \(text("myData.page.hidden", ["reason": reason]))" }
                body += "<li>\(line)</li>\n"
            }
            body += "</ul>\n"
        }

        body += "<h2>\(text("myData.page.travel"))</h2>\n"
        if gathered.pins.isEmpty { body += "<p>\(text("myData.page.noPins"))</p>\n" }
        let imagesByPhoto = Dictionary(images.map { ($0.photo.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (pin, photos) in gathered.pins {
            let place = pin.placeName.isEmpty ? String(format: "%.4f, %.4f", pin.latitude, pin.longitude) : pin.placeName
            body += "<section>\n<h3><bdi>\(escape(place))</bdi></h3>\n<p>\(day(pin.createdAt))</p>\n"
            for photo in photos {
                guard let image = imagesByPhoto[photo.id] else { continue }
                let caption = text("myData.page.photoBy", ["title": photo.title, "author": photo.author])
                body += "<figure><img src=\"\(escape(image.path))\" alt=\"\(escape(photo.title))\" loading=\"lazy\">"
                body += "<figcaption>\(caption)\(photo.license.map { " · " + escape($0) } ?? "")</figcaption></figure>\n"
            }
            body += "</section>\n"
        }
        // The file names are `quoted` in the message: shown as code.
        let machines = text("myData.page.machines").split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset % 2 == 1 ? "<code>\($0.element)</code>" : String($0.element) }.joined()
        body += "<p>\(machines)</p>\n"

        let direction = language.isRightToLeft ? "rtl" : "ltr"
        return """
            <!doctype html>
            <html lang="\(language.tag)" dir="\(direction)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(text("myData.page.title"))</title>
            <style>
            body { font: 16px/1.5 system-ui, sans-serif; max-width: 760px; margin: 0 auto; padding: 16px; color: #1d2733; }
            dt { font-weight: 600; } dd { margin: 0 0 8px; }
            figure { display: inline-block; margin: 0 12px 12px 0; max-width: 240px; vertical-align: top; }
            img { max-width: 100%; height: auto; border-radius: 8px; }
            figcaption { font-size: 13px; color: #4a5563; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
