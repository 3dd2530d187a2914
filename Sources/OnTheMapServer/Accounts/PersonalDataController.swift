import Foundation
import Hummingbird
import OnTheMapModels
import Storage

/// A student's own data (errors as `{"error":{"code","message"}}`): `GET /api/account/data`
/// downloads everything the server holds about the account as one JSON document, with the
/// account's locations also as GeoJSON; `POST /api/account/delete` deletes the account and all
/// of it at once, confirmed with the password (or, for an account without one, a sign-in made
/// in the last ten minutes).
struct PersonalDataController: Sendable {
    let accounts: AccountsService
    /// What the download gathers (every feature's records of the account) and the sign-up throttle.
    let store: any PersonalDataController.Store
    /// Deleting removes the account's locations from every class's map: through it.
    let writes: LocationWrites
    var configuration: Configuration { accounts.configuration }

    /// A student's data lives in every feature's tables: the download reads each.
    typealias Store = PersonalDataRepository & AccountRepository & ModerationRepository & ClassRepository & SignInRepository
        & TravelRepository & LoginThrottleRepository

    /// How recent a sign-in must be to delete an account that has no password.
    static let freshSignIn: TimeInterval = 600

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("account/data", use: download)
        group.get("account/data.zip", use: downloadArchive)
        group.post("account/delete", use: delete)
    }

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to download your data.")).account
        let data = try JSONSerialization.data(
            withJSONObject: try await gather(me).document, options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])
        var headers = HTTPFields()
        headers[.contentDisposition] = #"attachment; filename="onthemap-my-data.json""#
        headers[.cacheControl] = "no-store"
        return JSONResponse.raw(data, headers: headers)
    }

    /// `GET /api/account/data.zip`: the same as a zip anyone can open: a page to read (the
    /// account, classes and roles, where they are on each map, Travel pins with their photos
    /// as image files beside it) and the JSON and GeoJSON for programs (`PersonalDataArchive`).
    @Sendable func downloadArchive(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to download your data.")).account
        let gathered = try await gather(me)
        var images: [PersonalDataArchive.Image] = []
        for (pin, photos) in gathered.pins {
            for photo in photos where photo.state == .ready {
                guard let path = photo.filePath, let bytes = try? await store.photoStorage.read(relativePath: path) else { continue }
                images.append(PersonalDataArchive.Image(pinID: pin.id, photo: photo, data: bytes))
            }
        }
        let archive = try PersonalDataArchive.make(
            account: me, gathered: gathered, images: images, language: request.language, now: configuration.clock.now())
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentDisposition] = #"attachment; filename="\#(PersonalDataArchive.fileName)""#
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: archive)))
    }

    /// Everything the download holds: the JSON document, and the records the readable page shows.
    struct Gathered {
        var document: [String: Any]
        var classes: [(name: String, slug: String, role: String)]
        var locations: [OwnedLocation]
        var pins: [(Pin, [Photo])]
    }

    func gather(_ me: Account) async throws -> Gathered {
        let locations = try await store.ownedLocations(accountKey: me.key)
        let language = try await store.accountLanguage(accountKey: me.key)
        var pins: [[String: Any]] = []
        var pinRecords: [(Pin, [Photo])] = []
        for pin in try await store.pins(ownerKey: me.key) {
            let photoRecords = try await store.photos(pinID: pin.id)
            pinRecords.append((pin, photoRecords))
            let photos = photoRecords.map { photo -> [String: Any] in
                [
                    "id": photo.id, "provider": photo.provider, "title": photo.title, "author": photo.author,
                    "license": photo.license ?? NSNull(), "remote_url": photo.remoteURL,
                    "attribution_url": photo.attributionURL ?? NSNull(),
                    "state": photo.state.rawValue,
                ]
            }
            pins.append([
                "id": pin.id, "latitude": pin.latitude, "longitude": pin.longitude, "place_name": pin.placeName,
                "created_at": ParseDate.string(from: pin.createdAt), "updated_at": ParseDate.string(from: pin.updatedAt), "photos": photos,
            ])
        }
        let classes = try await store.classes(ofAccount: me.key).map {
            (name: $0.mapClass.name, slug: $0.mapClass.slug, role: $0.role.rawValue)
        }
        let document: [String: Any] = [
            "exported_at": ParseDate.string(from: configuration.clock.now()),
            "account": [
                "key": me.key, "email": me.email, "first_name": me.firstName, "last_name": me.lastName,
                "created_at": ParseDate.string(from: me.createdAt), "is_admin": me.isAdmin, "email_verified": me.emailVerified,
                "has_password": !me.passwordHash.isEmpty,
                "language": language.map { $0 as Any } ?? NSNull(),
            ],
            "classes": classes.map { ["slug": $0.slug, "name": $0.name, "role": $0.role] },
            "locations": locations.map { owned -> [String: Any] in
                var object = StudentLocationController.project(owned.record, keys: Set(LocationField.allCases.map(\.rawValue)))
                object["class"] = owned.classSlug
                object["hidden_reason"] = owned.hiddenReason ?? NSNull()
                return object
            },
            "locations_geojson": [
                "type": "FeatureCollection",
                "features": locations.map { owned -> [String: Any] in
                    let r = owned.record
                    return [
                        "type": "Feature", "id": r.objectId, "geometry": ["type": "Point", "coordinates": [r.longitude, r.latitude]],
                        "properties": [
                            "class": owned.classSlug, "mapString": r.mapString, "mediaURL": r.mediaURL,
                            "firstName": r.firstName, "lastName": r.lastName, "createdAt": r.createdAt, "updatedAt": r.updatedAt,
                        ],
                    ]
                },
            ],
            "travel": ["pins": pins],
            "sign_in_links": try await store.identities(accountKey: me.key).map {
                [
                    "provider": $0.provider, "email": $0.email, "created_at": ParseDate.string(from: $0.createdAt),
                    "origin": $0.origin.rawValue,
                ]
            },
            "reports_made": try await store.reportsMade(accountKey: me.key).map {
                ["object_id": $0.objectId, "reason": $0.reason, "created_at": ParseDate.string(from: $0.createdAt)]
            },
            "moderation_notices": try await store.moderationNotices(accountKey: me.key, limit: 100).map { notice -> [String: Any] in
                [
                    "action": notice.action.rawValue, "object_id": notice.objectId as Any? ?? NSNull(),
                    "map_string": notice.mapString as Any? ?? NSNull(),
                    "reason": notice.reason, "created_at": ParseDate.string(from: notice.createdAt),
                ]
            },
        ]
        return Gathered(document: document, classes: classes, locations: locations, pins: pinRecords)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireSignedIn(.api("Log in to delete your account."))
        let me = caller.account
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        struct Form: Decodable { var password: String? }
        guard let form = body.isEmpty ? Form() : try? JSONDecoder().decode(Form.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with password (a string).")
        }
        if me.passwordHash.isEmpty {
            // No password to confirm with: a sign-in made just now stands for it.
            guard configuration.clock.now().timeIntervalSince(caller.session.createdAt) <= Self.freshSignIn else {
                throw APIError(.forbidden, "sign_in_again", "Sign in again, then delete your account within ten minutes.")
            }
        } else {
            let throttle = LoginThrottle(store: store, settings: configuration.loginThrottle, clock: configuration.clock)
            // Its own counter: a session's holder guessing here slows down only this, never the owner's logins.
            let subjects = [ThrottleSubject(.deletion, me.key)]
            if let seconds = try await throttle.retryAfter(subjects) {
                let wait = seconds < 90 ? "\(seconds) seconds" : "\(Int((Double(seconds) / 60).rounded(.up))) minutes"
                throw RetryLater(
                    APIError(
                        .tooManyRequests, "rate_limited",
                        "Too many wrong passwords; nothing was deleted. Try again in \(wait)."), after: seconds)
            }
            let password = form.password ?? ""
            guard password.utf8.count <= Passwords.maximumBytes, try await accounts.verifyPassword(password, hash: me.passwordHash) else {
                try await throttle.recordFailure(subjects)
                throw APIError(.forbidden, "wrong_password", "The password is not right; nothing was deleted.")
            }
        }
        let deletion: AccountDeletion?
        do {
            deletion = try await writes.deleteAccount(key: me.key, now: configuration.clock.now())
        } catch StorageError.lastAdministrator {
            throw ModerationController.lastAdministrator
        }
        guard let deletion else { throw ModerationController.accountNotFound }
        context.logger.notice(
            "account deleted by its owner", metadata: ["locations": "\(deletion.locationCount)", "pins": "\(deletion.pinIDs.count)"])
        var response = SessionController.clearingSessionCookies(try JSONResponse.make(["deleted": true]))
        // The device cookie named an account that is gone.
        response.setCookie(Cookie(name: AccountsService.deviceCookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .lax))
        return response
    }
}
