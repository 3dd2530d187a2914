import Logging
import ServiceLifecycle
import Storage

/// Keeps the list cache honest when other servers share the database: every change they
/// announce invalidates it, and while the feed is not listening the cache is suspended,
/// because a write made then would go unseen.
struct ListCacheInvalidation: Service {
    let feed: AsyncStream<LocationChangeEvent>
    let cache: ListResponseCache
    let logger: Logger

    func run() async {
        for await event in feed.cancelOnGracefulShutdown() {
            switch event {
            case .listening:
                cache.resume()
                logger.debug("list cache: listening for other servers' writes")
            case .changed:
                cache.invalidate()
            case .interrupted:
                cache.suspend()
                logger.notice("list cache suspended until the change feed reconnects")
            }
        }
    }
}
