import Testing

@testable import OnTheMapServer

/// Every mounted route belongs to a declared family (`RouteFamily`), which says the format of
/// its errors, its metric label and whether `/c/<slug>` serves it; no route falls to a
/// fallback, and no declared mount is stale.
@Suite("Route families")
struct RouteFamilyTests {
    /// The web app's own routes: its pages, files and configuration.
    static func isWebApp(_ path: String) -> Bool {
        path == "/" || path.hasPrefix("/config.json") || path.hasPrefix("/vendor/") || !path.dropFirst().contains("/")
            || ["/js/", "/css/", "/img/", "/locales/", "/reset"].contains { path.hasPrefix($0) }
    }

    @Test("every mounted route resolves to a declared family, never a fallback, and every declared mount serves a route")
    func everyRouteHasItsFamily() async throws {
        let routes = try await mountedRoutes()
        #expect(routes.count > 60)
        for route in routes {
            let family = RouteFamily.of(route.path)
            #expect(family != .otherAPI, "\(route.method) \(route.path) has no family of its own: declare one in RouteFamily")
            if family == .web { #expect(Self.isWebApp(route.path), "\(route.method) \(route.path) falls to the web app's family") }
            // What an old app decodes: Parse's format on its routes, Udacity's on the session API.
            if route.path.hasPrefix("/parse/") || route.path.hasPrefix("/v1/StudentLocation") { #expect(family.errors == .parse) }
            if route.path.hasPrefix("/api/session") || route.path.hasPrefix("/v1/session") || route.path.hasPrefix("/v1/users/") {
                #expect(family.errors == .udacity, "\(route.path)")
            }
            // Every API route is served for a class under /c/<slug> too; pages are not.
            #expect(
                family.servedPerClass == (route.path.hasPrefix("/api/") || route.path.hasPrefix("/v1/") || route.path.hasPrefix("/parse/")),
                "\(route.path)")
        }
        for family in RouteFamily.all where family != .otherAPI && family != .web {
            for mount in family.mounts {
                #expect(
                    routes.contains { ($0.path + "/").hasPrefix("/" + mount) }, "\(family.name) declares \(mount), which serves no route")
            }
        }
    }

    @Test("the live map and search are families of their own, counted as reads of a class like its list and its moderation")
    func liveMap() async throws {
        let routes = try await mountedRoutes().filter {
            $0.path.hasPrefix("/api/locations/") && !$0.path.hasSuffix("/report") && $0.path != "/api/locations/search"
        }
        #expect(
            Set(routes.map(\.path)) == [
                "/api/locations/snapshot", "/api/locations/snapshot/map", "/api/locations/snapshot/map.bin", "/api/locations/changes",
                "/api/locations/placement",
            ])
        for route in routes { #expect(RouteFamily.of(route.path) == .liveMap) }
        #expect(RouteFamily.of("/api/locations/{objectId}/report") == .moderation)
        #expect(RouteFamily.of("/api/locations/search") == .search)
        #expect(
            RouteFamily.all.filter(\.countedPerClass).map(\.name).sorted() == ["live_map", "moderation", "search", "student_locations"])
    }
}
