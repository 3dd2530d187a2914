// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "OnTheMap",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "onthemap", targets: ["onthemap"]),
        .library(name: "OnTheMapKit", targets: ["OnTheMapKit"]),
        .library(name: "OnTheMapModels", targets: ["OnTheMapModels"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/async-kit.git", from: "1.22.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // TLS for the SMTP relay (STARTTLS or implicit TLS); already resolved through postgres-nio.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // The readable "my data" download: a zip of a page, the JSON, GeoJSON and photo files.
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
        // `swift package generate-documentation --target OnTheMapKit` (the SDK's DocC catalog).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Wire value types shared by the server and the SDK. Foundation only.
        .target(name: "OnTheMapModels"),
        // Client SDK an iOS/macOS app or a script imports. Never imports server code.
        .target(name: "OnTheMapKit", dependencies: ["OnTheMapModels"]),
        // The server's one way out to other services: URLSession under one deadline and one
        // error mapping. Foundation only.
        .target(name: "OutboundHTTP"),
        // Offline forward/reverse geocoder on a bundled GeoNames gazetteer. Foundation only.
        .target(name: "Geocoding", dependencies: ["OutboundHTTP"], resources: [.copy("Resources")]),
        // Repository protocols and their SQL implementation on SQLite or PostgreSQL.
        .target(
            name: "Storage",
            dependencies: [
                "OnTheMapModels",
                "ObjectStorage",
                // Its `Normalizer` folds the words a post is searched by.
                "Geocoding",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "AsyncKit", package: "async-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A small S3 client (SigV4 signing, PUT/GET/HEAD/DELETE/ListObjectsV2, presigned URLs).
        // Foundation (+FoundationNetworking) and swift-crypto only.
        .target(name: "ObjectStorage", dependencies: ["OutboundHTTP", .product(name: "Crypto", package: "swift-crypto")]),
        // Photo providers (Flickr, Wikimedia Commons) and the bounded-concurrency image downloader.
        // Foundation (+FoundationNetworking) only.
        .target(name: "PhotoAlbums", dependencies: ["OutboundHTTP"]),
        // The browser app: HTML, CSS and ES modules as resources, no Swift logic.
        .target(name: "WebApp", resources: [.copy("Public")]),
        .target(name: "Localization", resources: [.copy("Catalogues")]),
        // The system zlib, for the live map's gzip on every core (compress-nio covers the rest).
        .systemLibrary(name: "COnTheMapZlib", path: "Sources/COnTheMapZlib"),
        // The Hummingbird application: one folder per feature.
        .target(
            name: "OnTheMapServer",
            dependencies: [
                "OnTheMapModels",
                "OutboundHTTP",
                "Storage",
                "Geocoding",
                "PhotoAlbums",
                "ObjectStorage",
                "WebApp",
                "Localization",
                "COnTheMapZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            // The OpenAPI document served at /openapi.json.
            resources: [.copy("Docs/openapi.json")]
        ),
        .executableTarget(
            name: "onthemap",
            dependencies: [
                "OnTheMapServer",
                "OnTheMapKit",
                "Localization",
                "Storage",
                "ObjectStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "geocoder-benchmark", dependencies: ["Geocoding", "GeocoderAccuracySuite"], path: "Benchmarks/GeocoderBenchmark"),
        .executableTarget(
            name: "album-benchmark",
            dependencies: [
                "OnTheMapServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/AlbumBenchmark"
        ),
        // Test support: picks SQLite or PostgreSQL for the server suites.
        .target(
            name: "TestDatabases",
            dependencies: [
                "Storage", .product(name: "PostgresKit", package: "postgres-kit"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestDatabases"
        ),
        // The geocoder's accuracy suite (queries and expected places), for its tests and its
        // benchmark; not shipped in the Geocoding library.
        .target(
            name: "GeocoderAccuracySuite", dependencies: ["Geocoding"], path: "Tests/GeocoderAccuracySuite",
            resources: [.copy("Resources")]),
        .testTarget(name: "GeocodingTests", dependencies: ["Geocoding", "GeocoderAccuracySuite"]),
        .testTarget(name: "ObjectStorageTests", dependencies: ["ObjectStorage"]),
        .testTarget(name: "LocalizationTests", dependencies: ["Localization"]),
        .testTarget(
            name: "OnTheMapKitTests",
            dependencies: [
                "OnTheMapKit",
                "OnTheMapServer",
                "TestDatabases",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Runs the built `onthemap` binary end to end against a server process (and holds
        // `serve --help` to the settings' declaration in OnTheMapServer).
        .testTarget(name: "CLITests", dependencies: ["OnTheMapKit", "OnTheMapServer", "TestDatabases"]),
        .testTarget(
            name: "StorageTests",
            dependencies: ["Storage", "TestDatabases"]
        ),
        .testTarget(
            name: "OnTheMapServerTests",
            dependencies: [
                "OnTheMapServer",
                "Storage",
                "TestDatabases",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .testTarget(
            name: "TravelTests",
            dependencies: [
                "OnTheMapServer",
                "ObjectStorage",
                "PhotoAlbums",
                "Storage",
                "TestDatabases",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
