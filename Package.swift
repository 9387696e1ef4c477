// swift-tools-version:6.0
import PackageDescription

// Products several targets use.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics")
let postgresNIO: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")

let package = Package(
    name: "noticeboard",
    // Linux only (README, Platforms): the embedded PostgreSQL uses glibc and runuser and says so
    // at compile time elsewhere. The macOS floor lets the pure modules, GeoIndex and
    // NoticeBoardCore, build on a Mac (`swift build --target NoticeBoardCore`).
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "noticeboard", targets: ["noticeboard"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
    ],
    targets: [
        // Pure geometry and the in-memory spatial-temporal index: no I/O, no logging.
        .target(name: "GeoIndex", dependencies: ["IndexIntrinsics"]),
        // One C header: a cache-line prefetch hint and sincos, which Swift cannot express.
        .target(name: "IndexIntrinsics"),
        // The domain: posts, validation, queries, the storage protocols, and the board: the read
        // model that answers every query, its live feed, and the services that load it and keep
        // it in step with the database.
        .target(
            name: "NoticeBoardCore",
            dependencies: [
                "GeoIndex",
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                logging,
                metrics,
                serviceLifecycle,
            ]),
        // PostgreSQL: migrations, the store implementation, the embedded cluster launcher.
        .target(
            name: "NoticeBoardPostgres",
            dependencies: [
                "NoticeBoardCore",
                postgresNIO,
                logging,
                crypto,
                nioSSL,
                metrics,
            ],
            resources: [.copy("Migrations")]
        ),
        // The HTTP layer: transport limits, middleware, routes, JSON, moderator authentication.
        .target(
            name: "NoticeBoardServer",
            dependencies: [
                "NoticeBoardCore", "GeoIndex",
                hummingbird,
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                nioSSL,
                logging,
                crypto,
                serviceLifecycle,
                httpTypes,
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                metrics,
                prometheus,
                nioPosix,
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            resources: [.copy("Web"), .copy("OpenAPI")]
        ),
        .executableTarget(
            name: "noticeboard",
            dependencies: [
                "NoticeBoardCore", "NoticeBoardPostgres", "NoticeBoardServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                hummingbird,
                postgresNIO,
                serviceLifecycle,
                logging,
                crypto,
                metrics,
                prometheus,
                nioPosix,
            ]
        ),
        // Seeded random boards and the brute-force oracle every query is checked against.
        .target(name: "BoardTestSupport", dependencies: ["GeoIndex"], path: "Tests/BoardTestSupport"),
        .testTarget(name: "GeoIndexTests", dependencies: ["GeoIndex", "BoardTestSupport"]),
        .target(name: "CoreTestSupport", dependencies: ["NoticeBoardCore"], path: "Tests/CoreTestSupport"),
        .testTarget(name: "NoticeBoardCoreTests", dependencies: ["NoticeBoardCore", "GeoIndex", "BoardTestSupport", "CoreTestSupport"]),
        // A fresh database per test, on the embedded cluster or NOTICEBOARD_TEST_DATABASE_URL.
        .target(
            name: "DatabaseTestSupport",
            dependencies: [
                "NoticeBoardPostgres",
                postgresNIO,
                logging,
            ],
            path: "Tests/DatabaseTestSupport"),
        .testTarget(
            name: "NoticeBoardPostgresTests",
            dependencies: [
                "NoticeBoardCore", "NoticeBoardPostgres", "DatabaseTestSupport", "GeoIndex",
                postgresNIO,
                logging,
            ]
        ),
        .testTarget(
            name: "NoticeBoardServerTests",
            dependencies: [
                "NoticeBoardCore", "NoticeBoardPostgres", "NoticeBoardServer", "GeoIndex", "BoardTestSupport", "CoreTestSupport", "DatabaseTestSupport",
                hummingbird,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "CompressNIO", package: "compress-nio"),
                httpTypes,
                postgresNIO,
                logging,
                crypto,
                serviceLifecycle,
                nioPosix,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The benchmarks' executables are compiled only when asked for: NOTICEBOARD_BENCHMARKS=1.
if Context.environment["NOTICEBOARD_BENCHMARKS"] == "1" {
    package.products.append(.executable(name: "noticeboard-bench", targets: ["IndexBenchmark"]))
    package.targets.append(.executableTarget(name: "IndexBenchmark", dependencies: ["GeoIndex", "NoticeBoardCore", "BoardTestSupport"]))
    // The request-cost floor beside which the server's own cost per request is measured.
    package.products.append(.executable(name: "bare-hummingbird", targets: ["BareHummingbird"]))
    package.targets.append(.executableTarget(name: "BareHummingbird", dependencies: [hummingbird, postgresNIO, logging, serviceLifecycle]))
}
