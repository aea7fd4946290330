// swift-tools-version: 6.2
import PackageDescription

/// Settings shared by every target we own: Swift 6 language mode is the
/// tools-version default; warnings in *our* code are errors (dependencies are
/// untouched, unlike `-Xswiftc -warnings-as-errors`).
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let log = Target.Dependency.product(name: "Logging", package: "swift-log")
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let dequeModule = Target.Dependency.product(name: "DequeModule", package: "swift-collections")
let heapModule = Target.Dependency.product(name: "HeapModule", package: "swift-collections")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let protobuf = Target.Dependency.product(name: "SwiftProtobuf", package: "swift-protobuf")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let configuration = Target.Dependency.product(name: "Configuration", package: "swift-configuration")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let propertyBased = Target.Dependency.product(name: "PropertyBased", package: "swift-property-based")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let jwtKit = Target.Dependency.product(name: "JWTKit", package: "jwt-kit")
let bcrypt = Target.Dependency.product(name: "HummingbirdBcrypt", package: "hummingbird-auth")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
let nioHTTP2 = Target.Dependency.product(name: "NIOHTTP2", package: "swift-nio-http2")
let x509 = Target.Dependency.product(name: "X509", package: "swift-certificates")

/// The six services. Each may import the bus, the store, the messages, the
/// service toolkit and libraries — never another service, the node host or
/// the socket bridge (checked by `ops/check-boundaries.sh` and by
/// `ServiceBoundaryTests`).
let serviceNames = [
    "SearchService", "ScoringService", "WatchlistService",
    "SubscriptionService", "AlertsService", "AnalyticsService",
]
let serviceTargets: [Target] = serviceNames.map { name in
    let extra: [Target.Dependency] = switch name {
    case "SearchService": [httpClient, nioCore, configuration]
    case "ScoringService": [protobuf]
    // A check's scanned trips kept as protobuf's JSON (ScannedPairsText).
    case "WatchlistService": [protobuf]
    // APNs: the provider token (ES256, jwt-kit) and extra trust roots (NIOSSL) for HTTP/2 over TLS (docs/push.md).
    case "AlertsService": [httpClient, nioCore, crypto, configuration, jwtKit, nioSSL, nioHTTP2]
    case "AnalyticsService": [crypto, configuration, protobuf]
    // Identity: bcrypt for passwords, SHA-256 for refresh tokens (docs/api.md); the App Store's x5c-signed payloads (docs/payments.md).
    case "SubscriptionService": [bcrypt, crypto, configuration, jwtKit, x509]
    default: []
    }
    return .target(
        name: name,
        dependencies: ["FareLensBus", "FareLensMessages", "FareLensStore", "FareLensServiceKit", log, metrics, lifecycle, grdb] + extra,
        resources: ["SearchService", "ScoringService", "SubscriptionService"].contains(name) ? [.copy("Resources")] : nil,
        swiftSettings: strict
    )
}

let package = Package(
    name: "FareLens",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "farelens", targets: ["farelens"]),
        .executable(name: "farelensctl", targets: ["farelensctl"]),
        .library(name: "FareLensBus", targets: ["FareLensBus"]),
        .library(name: "FareLensRuntime", targets: ["FareLensRuntime"]),
        /// What a service target imports (docs/architecture.md).
        .library(name: "FareLensServiceKit", targets: ["FareLensServiceKit"]),
        .library(name: "FareLensMessages", targets: ["FareLensMessages"]),
        .library(name: "FareLensWire", targets: ["FareLensWire"]),
        /// The bus over NATS (a build with `--traits NATS`; docs/bus.md, "Over NATS").
        .library(name: "FareLensNATS", targets: ["FareLensNATS"]),
        .library(name: "FareLensServices", targets: ["FareLensServices"]),
        .library(name: "SearchService", targets: ["SearchService"]),
        /// For the watchlist benchmark, which loads the service's own database and serves it on a bus.
        .library(name: "WatchlistService", targets: ["WatchlistService"]),
        /// For the scoring benchmark: the score function and the service built from its descriptor.
        .library(name: "ScoringService", targets: ["ScoringService"]),
        /// For the soak benchmark, which opens the search service's (in-memory) database as a node would.
        .library(name: "FareLensStore", targets: ["FareLensStore"]),
        /// For the alerts benchmark: the policy and the outbox delivery.
        .library(name: "AlertsService", targets: ["AlertsService"]),
        /// The app's HTTP/JSON edge (docs/api.md).
        .library(name: "FareLensGateway", targets: ["FareLensGateway"]),
        /// Test doubles; the push benchmark runs the APNs stub from here.
        .library(name: "FareLensTesting", targets: ["FareLensTesting"]),
    ],
    /// `swift build --traits NATS` builds the bus's NATS transport, which links
    /// the official C client (libnats-dev); the default build needs neither
    /// (docs/decisions/0026-nats-as-a-package-trait.md).
    traits: [
        .trait(name: "NATS", description: "the bus over NATS and JetStream (bus.transport = nats); needs libnats-dev"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Keep equal to `version` in ops/gen-protos.sh: generated code must match the runtime.
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // HMAC-SHA256 for webhook signatures (alerts) and user pseudonyms (analytics).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // The Prometheus text of every node's swift-metrics (`/metrics`, `farelensctl metrics`).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The gateway: HTTP server, session tokens (ES256 JWTs, Apple's RS256 identity tokens), bcrypt.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The gateway's optional TLS 1.3 (HummingbirdTLS over swift-nio-ssl); tests make certificates with swift-certificates.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        /// The APNs stub the push tests and benchmark talk to (HTTP/2 server side); AsyncHTTPClient already builds it.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        .target(
            name: "FareLensBus",
            dependencies: [log, metrics, dequeModule, .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strict
        ),
        /// Generated protobuf messages (committed; `ops/gen-protos.sh`) and
        /// their request→response and event→topic conformances.
        .target(
            name: "FareLensMessages",
            dependencies: ["FareLensBus", protobuf],
            exclude: ["Generated/README.md"],
            swiftSettings: strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        /// Frames, zlib, the protobuf envelope and the Unix-socket bridge.
        .target(
            name: "FareLensWire",
            dependencies: [
                "FareLensBus", "FareLensMessages", "FareLensStore", nioCore, nioPosix, log, metrics, lifecycle, protobuf, grdb, heapModule,
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strict
        ),
        /// The official NATS C client, found with pkg-config (docs/bus.md, "Over NATS").
        .systemLibrary(name: "CNats", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
        /// The bus over NATS: requests, events, JetStream for durable events,
        /// the node registry. Without the NATS trait only its settings build.
        .target(
            name: "FareLensNATS",
            dependencies: [
                "FareLensBus", "FareLensMessages", "FareLensWire", log, metrics, lifecycle, protobuf, nioCore, nioPosix,
                .target(name: "CNats", condition: .when(traits: ["NATS"])),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "FareLensStore",
            dependencies: [grdb, .product(name: "GRDBSQLite", package: "GRDB.swift"), log, "CSQLiteSettings"],
            swiftSettings: strict
        ),
        /// One call Swift cannot make (`sqlite3_config` is variadic): docs/decisions/0018.
        .target(
            name: "CSQLiteSettings",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        /// The service toolkit: what a service target imports (its descriptor and
        /// context, the event outbox, the clocks, configuration keys). No bridge,
        /// no HTTP server: a service's build graph holds neither (docs/architecture.md).
        .target(
            name: "FareLensServiceKit",
            dependencies: ["FareLensBus", "FareLensStore", "FareLensMessages", log, metrics, lifecycle, grdb, dequeModule, configuration],
            swiftSettings: strict
        ),
        /// The node host: the node that runs services, its bridge, its metrics
        /// HTTP endpoint and its configuration (what `farelens` links).
        .target(
            name: "FareLensRuntime",
            dependencies: [
                "FareLensBus", "FareLensStore", "FareLensMessages", "FareLensServiceKit", "FareLensWire", "FareLensNATS", log, metrics, lifecycle, grdb,
                prometheus, nioCore, nioPosix, nioHTTP1, dequeModule,
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strict
        ),
        /// The app's HTTP/JSON edge: a bus client like farelensctl, hosted
        /// like a service; imports no service target (ops/check-boundaries.sh).
        .target(
            name: "FareLensGateway",
            dependencies: ["FareLensBus", "FareLensMessages", "FareLensServiceKit", "FareLensStore", log, metrics, grdb, hummingbird, jwtKit, crypto, configuration, protobuf, nioCore, httpClient, lifecycle,
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "HummingbirdTLS", package: "hummingbird"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strict
        ),
        /// The registry of all six services and the gateway; the only target that knows them all.
        .target(
            name: "FareLensServices",
            dependencies: serviceNames.map { .target(name: $0) } + ["FareLensRuntime", "FareLensServiceKit", "FareLensGateway"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "farelens",
            dependencies: [
                "FareLensServices", "FareLensRuntime", "FareLensServiceKit", "FareLensBus", "FareLensMessages", "FareLensWire", log, metrics, lifecycle, argumentParser, prometheus,
            ],
            swiftSettings: strict
        ),
        /// The admin CLI: talks to a node over its socket as an admin peer.
        .executableTarget(
            name: "farelensctl",
            dependencies: ["FareLensWire", "FareLensMessages", "FareLensBus", argumentParser, protobuf],
            swiftSettings: strict
        ),
        /// A spoke the crash tests start and `kill -9` in a precise state; not shipped.
        .executableTarget(
            name: "farelens-test-node",
            dependencies: ["FareLensBus", "FareLensRuntime", "FareLensServiceKit", "FareLensStore", "FareLensTesting", "FareLensWire", "FareLensNATS", grdb, argumentParser],
            swiftSettings: strict
        ),
        .target(
            name: "FareLensTesting",
            dependencies: [
                "FareLensBus", "FareLensServiceKit", "FareLensStore", "FareLensWire", "FareLensNATS", "FareLensMessages", log, metrics, nioCore, nioPosix, nioHTTP1,
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                // The APNs stub (HTTP/2 over TLS, a test certificate authority, provider-token checks).
                nioHTTP2, nioSSL, x509, jwtKit, crypto,
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FareLensBusTests",
            dependencies: ["FareLensBus", "FareLensTesting", .product(name: "MetricsTestKit", package: "swift-metrics"), propertyBased],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FareLensStoreTests",
            dependencies: ["FareLensStore", "FareLensTesting", grdb, propertyBased],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FareLensRuntimeTests",
            dependencies: [
                "FareLensRuntime", "FareLensServiceKit", "FareLensServices", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensWire", "FareLensNATS", "FareLensStore", lifecycle, log,
                metrics, prometheus, httpClient, grdb, configuration, .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FareLensWireTests",
            dependencies: [
                "FareLensWire", "FareLensNATS", "FareLensMessages", "FareLensBus", "FareLensTesting", nioCore, nioPosix, log, lifecycle, protobuf, grdb, propertyBased, httpClient, nioHTTP1,
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SearchServiceTests",
            dependencies: ["SearchService", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensRuntime", "FareLensServiceKit", "FareLensStore", configuration, log],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SubscriptionServiceTests",
            dependencies: ["SubscriptionService", "SearchService", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensRuntime", "FareLensServiceKit", "FareLensStore", "FareLensWire", grdb, log],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ScoringServiceTests",
            dependencies: ["ScoringService", "SearchService", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensRuntime", "FareLensServiceKit", "FareLensStore", "FareLensWire", grdb, log, propertyBased, configuration],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WatchlistServiceTests",
            dependencies: ["WatchlistService", "SubscriptionService", "SearchService", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensRuntime", "FareLensServiceKit", "FareLensStore", "FareLensWire", grdb, log],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AlertsServiceTests",
            dependencies: ["AlertsService", "SubscriptionService", "WatchlistService", "AnalyticsService", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensRuntime", "FareLensServiceKit", "FareLensStore", "FareLensWire", grdb, log, crypto, configuration,
                           httpClient, jwtKit, nioSSL, nioCore],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AnalyticsServiceTests",
            dependencies: ["AnalyticsService", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensRuntime", "FareLensServiceKit", "FareLensStore", "FareLensWire", grdb, log, crypto, configuration],
            swiftSettings: strict
        ),
        /// The shared definitions in FareLensMessages (the attribution sub-id).
        .testTarget(name: "FareLensMessagesTests", dependencies: ["FareLensMessages", "FareLensTesting", crypto, protobuf], swiftSettings: strict),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "FareLensGateway", "FareLensServices", "FareLensTesting", "FareLensBus", "FareLensMessages", "FareLensRuntime", "FareLensServiceKit", "FareLensStore",
                httpClient, jwtKit, crypto, log, configuration, nioCore, nioHTTP1, nioPosix,
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "FarelensctlTests", dependencies: ["farelensctl", "FareLensMessages"], swiftSettings: strict),
    ] + serviceTargets
)
