import Foundation
import Logging
import PhotoAlbums
import Storage

/// How albums work beside other servers on one database and photo store: download claims
/// renewed and taken over, searches a stopped server left behind, album changes heard from
/// and announced to the others, and the provider quota they share. The job loop is in
/// `AlbumService.swift`.
extension AlbumService {
    /// How this server works beside others on one database and photo store.
    struct Sharing: Sendable {
        /// This process, as the owner of its download claims.
        var serverID = "server-" + UUID().uuidString.lowercased()
        /// How long a claim lasts unless renewed (renewed at a third of it, so a live
        /// server never loses one; a crashed server's claims are taken over this long after).
        var claimDuration: TimeInterval = 60
        /// Album changes other servers announce (PostgreSQL LISTEN); nil with one server.
        var feed: AsyncStream<String>? = nil
        /// Announces an album change to the other servers.
        var announce: (@Sendable (String) async -> Void)? = nil
        /// The provider's searches allowed per hour for every server together (Flickr:
        /// 3,600 a key), counted under `quotaName`; nil: not limited here.
        var providerSearchesPerHour: Int? = nil
        var quotaName = ""
        /// Other servers may share the database: a search left `searching` is resumed only
        /// once it is older than `searchAbandonedAfter` (it may be running elsewhere).
        var sharedDatabase = false
        var searchAbandonedAfter: TimeInterval = 240
    }

    /// Renews this server's claims while their downloads run, and takes over downloads
    /// nobody is working on (a crashed server's, once their claims expired).
    func keepClaims() async {
        let period = max(0.2, sharing.claimDuration / 3)
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(Int(period * 1000)))
            if Task.isCancelled { return }
            let now = clock.now()
            let ids = Array(active.withLock { $0 })
            do {
                try await store.renewClaims(ids: ids, owner: sharing.serverID, until: now.addingTimeInterval(sharing.claimDuration))
                let abandoned = try await store.abandonedPhotos(
                    now: now, unclaimedBefore: now.addingTimeInterval(-2 * sharing.claimDuration), limit: 100
                )
                for photo in abandoned where !active.withLock({ $0.contains(photo.id) }) {
                    logger.info("taking over an abandoned photo download", metadata: ["photo": "\(photo.id)"])
                    enqueue(.download(photo))
                }
                if sharing.sharedDatabase { await resumeStaleSearches() }
            } catch {
                logger.warning("could not renew photo download claims", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Searches a stopped server left `searching`, taken over by exactly one server.
    func resumeStaleSearches() async {
        let now = clock.now()
        let before = now.addingTimeInterval(-sharing.searchAbandonedAfter)
        guard let stale = try? await store.staleSearches(before: before, limit: 50) else { return }
        for state in stale where (try? await store.takeStaleSearch(pinID: state.pinID, before: before, now: now)) == true {
            logger.info("taking over an abandoned album search", metadata: ["pin": "\(state.pinID)"])
            enqueue(.album(pinID: state.pinID, choice: state.collection == 0 ? .first : .another))
        }
    }

    /// Passes album changes other servers announce to this server's live watchers, as
    /// whole albums read afresh (a notification says which pin, not what changed).
    func relay(_ feed: AsyncStream<String>) async {
        for await payload in feed {
            let parts = payload.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] != sharing.serverID, PhotoFileStore.isSafeComponent(parts[1]),
                events.hasWatchers(pinID: parts[1])
            else { continue }
            let pinID = parts[1]
            let found: Pin?
            do { found = try await store.pin(id: pinID) } catch { continue }
            guard let pin = found else {
                events.publish(.pinDeleted(id: pinID), pinID: pinID)
                continue
            }
            guard let snapshot = try? await snapshot(pin: pin) else { continue }
            events.publish(.album(snapshot), pinID: pinID)
            if snapshot.isSettled { events.publish(.done(snapshot), pinID: pinID) }
        }
    }

    /// Tells this server's watchers, then the other servers' (through the database).
    func publish(_ event: AlbumEvent, pinID: String) async {
        events.publish(event, pinID: pinID)
        if let announce = sharing.announce { await announce("\(sharing.serverID) \(pinID)") }
    }

    /// Counts one provider search against the quota every server shares; a used-up hour
    /// answers as the provider itself would (rate limited, retry when the hour turns).
    func admitProviderSearch() async throws {
        guard let perHour = sharing.providerSearchesPerHour else { return }
        let now = clock.now()
        let hour = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
        guard try await store.countUse(name: sharing.quotaName, windowStart: hour, limit: perHour) else {
            throw PhotoProviderError.rateLimited(
                provider: provider.displayName, retryAfter: max(1, Int(hour.addingTimeInterval(3600).timeIntervalSince(now).rounded(.up))))
        }
    }
}
