import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import OnTheMapModels
import Storage
import Synchronization

// Only these two: Prometheus' own Counter and Gauge would shadow swift-metrics' ones.
import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// The server's metrics, recorded through swift-metrics and written in Prometheus' text
/// format at `/metrics`. Each application has its own registry (no process-wide bootstrap),
/// so several servers in one process, as in the tests, never mix their figures.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory
    let listCacheHits: Counter
    let listCacheMisses: Counter
    let photoDownloads: Counter
    let photoFailures: Counter
    /// The mail outbox: messages the relay accepted, attempts put off (4xx, no relay),
    /// messages the relay refused for good (5xx), and unsent messages dropped after a week.
    let mailSent: Counter
    let mailRetried: Counter
    let mailFailed: Counter
    let mailDropped: Counter
    /// Sampled at each scrape: things the server already counts (album watchers).
    private let samplers: [@Sendable () -> (name: String, value: Double)]

    init(samplers: [@Sendable () -> (name: String, value: Double)] = []) {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Our routes answer in milliseconds; the long tail is slow geocoding or a login's bcrypt.
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
        ]
        self.factory = factory
        listCacheHits = Counter(label: "onthemap_list_cache_hits_total", factory: factory)
        listCacheMisses = Counter(label: "onthemap_list_cache_misses_total", factory: factory)
        photoDownloads = Counter(label: "onthemap_album_photo_downloads_total", factory: factory)
        photoFailures = Counter(label: "onthemap_album_photo_failures_total", factory: factory)
        mailSent = Counter(label: "onthemap_mail_sent_total", factory: factory)
        mailRetried = Counter(label: "onthemap_mail_retried_total", factory: factory)
        mailFailed = Counter(label: "onthemap_mail_failed_total", factory: factory)
        mailDropped = Counter(label: "onthemap_mail_dropped_total", factory: factory)
        self.samplers = samplers
    }

    /// Counts one answered request and its duration, by route family (never by raw path, so
    /// ids in paths cannot grow the number of series).
    func recordRequest(path: String, method: HTTPRequest.Method, status: Int, duration: Duration) {
        let family = RouteFamily.of(path).name
        Counter(
            label: "onthemap_http_requests_total",
            dimensions: [("family", family), ("method", method.rawValue), ("status", String(status))], factory: factory
        ).increment()
        Metrics.Timer(label: "onthemap_http_request_duration_seconds", dimensions: [("family", family)], factory: factory)
            .record(duration: duration)
    }

    /// Public classes counted by their own slug; any further one is counted as `other`, so a
    /// server with thousands of classes keeps a bounded number of series.
    static let maximumClassLabels = 100
    /// The one label of every class that is not public: `/metrics` is open unless the host
    /// sets a token, and a members-only class's slug is its members' business.
    static let privateClassLabel = "private"
    private let classLabels = Mutex<Set<String>>([])

    /// Counts one answered request to a class's map (list, record, live map, moderation).
    /// Only a public class is counted under its slug; every other class counts as `private`.
    func recordClassRequest(slug: String, visibility: MapClass.Visibility) {
        let label =
            visibility != .public
            ? Self.privateClassLabel
            : classLabels.withLock { labels -> String in
                if labels.contains(slug) { return slug }
                guard labels.count < Self.maximumClassLabels else { return "other" }
                labels.insert(slug)
                return slug
            }
        Counter(label: "onthemap_class_requests_total", dimensions: [("class", label)], factory: factory).increment()
    }

    /// The Prometheus text exposition of everything recorded so far.
    func scrape() -> String {
        for sampler in samplers {
            let (name, value) = sampler()
            Gauge(label: name, factory: factory).record(value)
        }
        return registry.emitToString()
    }
}

/// Records every request's family, status and duration (the last middleware to see the
/// answer, so error answers are counted with their real status).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.recordRequest(
                path: request.uri.path, method: request.method, status: response.status.code,
                duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.recordRequest(path: request.uri.path, method: request.method, status: status, duration: ContinuousClock.now - start)
            throw error
        }
    }
}

/// `GET /metrics`, behind `Authorization: Bearer <token>` when `--metrics-token` is set.
struct MetricsRoute: Sendable {
    let metrics: ServerMetrics
    let token: String?

    func register(on router: Router<AppRequestContext>) {
        router.get("metrics") { request, _ -> Response in
            if let token, !token.isEmpty {
                let given = request.headers[.authorization] ?? ""
                guard Tokens.constantTimeEqual(given, "Bearer " + token) else { throw MetricsUnauthorized() }
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: .init(string: metrics.scrape())))
        }
    }

}

/// 401 in our API's error format, with the challenge a scraper expects.
struct MetricsUnauthorized: HTTPResponseError {
    var status: HTTPResponse.Status { .unauthorized }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try APIError(.unauthorized, "unauthorized", "Send Authorization: Bearer <the metrics token>.")
            .response(from: request, context: context)
        response.headers[.wwwAuthenticate] = "Bearer"
        return response
    }
}
