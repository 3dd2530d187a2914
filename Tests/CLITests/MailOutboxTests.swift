import Foundation
import Logging
import TestDatabases
import Testing

@testable import OnTheMapServer
@testable import Storage

/// The durable outbox with a real relay (aiosmtpd): written with its cause or not at all,
/// sent once, retried with backoff, refused for good, dropped after a week (each counted in
/// `/metrics`), and several workers on one database never sending one message twice. On
/// SQLite, or on PostgreSQL when `ONTHEMAP_TEST_POSTGRES_*` names one.
@Suite("Mail outbox", .serialized)
struct MailOutboxTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var databaseURL: String {
        TestDatabases.databaseURL(forDataDirectory: directory)
            ?? "sqlite://" + directory.appendingPathComponent("onthemap.sqlite").path
    }

    func openStore() async throws -> SQLStore {
        try await SQLStore.open(url: databaseURL, dataDirectory: directory.path, logger: TestDatabases.logger("outbox"))
    }

    static let sender = MailAddress(name: "On the Map", address: "map@school.example")

    func mail(_ number: Int, to recipient: String = "ana@example.org") -> NewOutboxMail {
        let message = MailComposer.compose(
            from: Self.sender, to: recipient,
            content: MailContent(subject: "Message \(number)", text: "Number \(number)", html: "<p>Number \(number)</p>"), date: Date())
        return NewOutboxMail(
            kind: "test", recipient: recipient, sender: Self.sender.address, messageID: message.messageID, message: message.data)
    }

    func worker(_ store: SQLStore, relayPort: Int, clock: ManualClock, metrics: ServerMetrics) throws -> MailOutboxWorker {
        MailOutboxWorker(
            outbox: store, transport: SMTPTransport(settings: try SMTPSettings.parse("smtp://127.0.0.1:\(relayPort)"), clientName: "test"),
            clock: clock.clock, metrics: metrics, logger: TestDatabases.logger("outbox"), wake: MailOutboxWake())
    }

    static func metric(_ name: String, _ metrics: ServerMetrics) -> Double? {
        metrics.scrape().split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    func count(_ store: SQLStore) async throws -> Int {
        try await store.withDatabase { db in
            try await db.raw("SELECT COUNT(*) AS n FROM mail_outbox").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    @Test func aMessageIsWrittenWithItsCauseOrNotAtAll() async throws {
        let store = try await openStore()
        defer { Task { try? await store.close() } }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.withTransaction { db in
                try await SQLStore.insertMail(mail(1), now: Date(), on: db)
                throw Refused()
            }
        }
        #expect(try await count(store) == 0)
        try await store.withTransaction { db in try await SQLStore.insertMail(mail(2), now: Date(), on: db) }
        #expect(try await count(store) == 1)
        try await store.close()
    }

    @Test func sentOnceThenForgotten() async throws {
        guard SMTPSink.available else { return }
        let sink = try await SMTPSink(in: directory)
        defer { sink.stop() }
        let store = try await openStore()
        let clock = ManualClock()
        let metrics = ServerMetrics()
        let worker = try worker(store, relayPort: sink.port, clock: clock, metrics: metrics)
        let written = mail(1)
        try await store.enqueueMail(written, now: clock.now)
        #expect(try await worker.deliverDue() == .init(sent: 1))
        #expect(try await worker.deliverDue() == .init())
        let received = try sink.messages()
        #expect(received.count == 1)
        #expect(received.first?.data.contains("Message-ID: \(written.messageID)") == true)
        #expect(Self.metric("onthemap_mail_sent_total", metrics) == 1)
        // The text (and any link in it) is gone from the database once sent.
        let kept = try await store.withDatabase { db in
            try await db.raw("SELECT message, sent_at FROM mail_outbox").first().map {
                (try $0.decode(column: "message", as: String.self), try $0.decode(column: "sent_at", as: String?.self))
            }
        }
        #expect(kept?.0 == "")
        #expect(kept?.1 != nil)
        // A week later even the envelope is swept.
        clock.advance(by: 8 * 86_400)
        #expect(try await worker.deliverDue() == .init())
        #expect(try await count(store) == 0)
        try await store.close()
    }

    @Test func aRelayThatPutsOffOrIsDownIsTriedAgainThenTheMessageIsDropped() async throws {
        guard SMTPSink.available else { return }
        let later = try await SMTPSink(["--refuse", "451"], in: directory)
        defer { later.stop() }
        let store = try await openStore()
        let clock = ManualClock()
        let metrics = ServerMetrics()
        let worker = try worker(store, relayPort: later.port, clock: clock, metrics: metrics)
        try await store.enqueueMail(mail(1), now: clock.now)
        #expect(try await worker.deliverDue() == .init(retried: 1))
        // Not due again before its backoff: 30 s, then 60 s.
        #expect(try await worker.deliverDue() == .init())
        let due = try #require(try await store.nextMailDue())
        #expect(abs(due.timeIntervalSince(clock.now) - 30) < 1)
        clock.advance(by: 31)
        #expect(try await worker.deliverDue() == .init(retried: 1))
        let next = try #require(try await store.nextMailDue())
        #expect(abs(next.timeIntervalSince(clock.now) - 60) < 1)
        // No relay at all: the same.
        let down = try self.worker(store, relayPort: try freePort(), clock: clock, metrics: metrics)
        clock.advance(by: 61)
        #expect(try await down.deliverDue() == .init(retried: 1))
        #expect(Self.metric("onthemap_mail_retried_total", metrics) == 3)
        // A week after it was written it is dropped, with its count.
        clock.advance(by: 7 * 86_400)
        #expect(try await worker.deliverDue() == .init(dropped: 1))
        #expect(Self.metric("onthemap_mail_dropped_total", metrics) == 1)
        #expect(try await count(store) == 0)
        #expect(try later.messages().isEmpty)
        try await store.close()
    }

    @Test func aRelayThatRefusesTheMessageEndsIt() async throws {
        guard SMTPSink.available else { return }
        let refusing = try await SMTPSink(["--refuse", "550"], in: directory)
        defer { refusing.stop() }
        let store = try await openStore()
        let clock = ManualClock()
        let metrics = ServerMetrics()
        let worker = try worker(store, relayPort: refusing.port, clock: clock, metrics: metrics)
        try await store.enqueueMail(mail(1), now: clock.now)
        #expect(try await worker.deliverDue() == .init(failed: 1))
        clock.advance(by: 3600)
        #expect(try await worker.deliverDue() == .init())
        #expect(Self.metric("onthemap_mail_failed_total", metrics) == 1)
        #expect(try await store.nextMailDue() == nil)
        try await store.close()
    }

    @Test func severalWorkersNeverSendOneMessageTwice() async throws {
        guard SMTPSink.available else { return }
        let sink = try await SMTPSink(in: directory)
        defer { sink.stop() }
        // Three servers' stores on one database.
        let stores = [try await openStore(), try await openStore(), try await openStore()]
        let clock = ManualClock()
        for number in 0..<24 { try await stores[0].enqueueMail(mail(number, to: "s\(number)@example.org"), now: clock.now) }
        var workers: [MailOutboxWorker] = []
        for store in stores {
            var worker = try worker(store, relayPort: sink.port, clock: clock, metrics: ServerMetrics())
            worker.settings.batch = 3
            workers.append(worker)
        }
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in workers {
                group.addTask {
                    var total = 0
                    while true {
                        let round = try await worker.deliverDue()
                        if round == .init() { return total }
                        total += round.sent
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sent == 24)
        let received = try sink.messages()
        #expect(received.count == 24)
        #expect(Set(received.flatMap(\.rcptTos)).count == 24)
        for store in stores { try await store.close() }
    }
}
