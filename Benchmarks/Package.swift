// swift-tools-version: 6.2
import PackageDescription

/// Benchmarks live in their own package so the test build never compiles
/// them. Run: `swift run -c release --package-path Benchmarks bus-benchmarks`
/// or `... wire-benchmarks`, `... nats-benchmarks`, `... search-benchmarks`, `... watchlist-benchmarks`, `... scoring-benchmarks`, `... alerts-benchmarks`, `... push-bench`.
let package = Package(
    name: "FareLensBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // With its NATS transport (a package trait; needs libnats-dev): nats-benchmarks measures it.
        .package(name: "FareLens", path: "..", traits: ["NATS"]),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        /// The same-run comparison harness shared by every benchmark (docs/decisions/0002).
        .target(
            name: "BenchmarkHarness",
            dependencies: [
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensWire", package: "FareLens"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/BenchmarkHarness",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// The reference of the gateway benchmark: a bare Hummingbird route returning a constant (gateway-bench.py).
        .executableTarget(
            name: "bare-hummingbird",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log")],
            path: "Sources/BareHummingbird",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        .executableTarget(
            name: "bus-benchmarks",
            dependencies: ["BenchmarkHarness", .product(name: "FareLensBus", package: "FareLens")],
            path: "Sources/BusBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// The bus over NATS (issue #57) beside NATS's own C client in the same run:
        /// request/reply p50, and durable publish beside JetStream's async publish floor.
        .executableTarget(
            name: "nats-benchmarks",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "FareLensNATS", package: "FareLens"),
                .product(name: "FareLensTesting", package: "FareLens"),
                .product(name: "FareLensWire", package: "FareLens"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/NATSBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// The Unix-socket bridge: request/reply latency, pipelined throughput, frame compression.
        .executableTarget(
            name: "wire-benchmarks",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensWire", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/WireBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// The search service: cached search (target p99 ≤ 100 µs in process) and a cold simulated search.
        .executableTarget(
            name: "search-benchmarks",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "SearchService", package: "FareLens"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/SearchBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// The watchlist service with 1 M watchlists for 200 k users: RSS, list latency, planning one day;
        /// with `--flexible`, a check of a flexible range's 60 trips from search's cache beside a one-trip check.
        .executableTarget(
            name: "watchlist-benchmarks",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "FareLensRuntime", package: "FareLens"),
                .product(name: "FareLensServiceKit", package: "FareLens"),
                .product(name: "FareLensStore", package: "FareLens"),
                .product(name: "WatchlistService", package: "FareLens"),
                .product(name: "SearchService", package: "FareLens"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/WatchlistBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// The scoring service: the pure score function, history ingest through the bus, the deal feed with 10 k deals.
        .executableTarget(
            name: "scoring-benchmarks",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "FareLensRuntime", package: "FareLens"),
                .product(name: "FareLensServiceKit", package: "FareLens"),
                .product(name: "FareLensStore", package: "FareLens"),
                .product(name: "ScoringService", package: "FareLens"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/ScoringBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// Pushes per second from the APNs channel to the local APNs stub, beside a trivial HTTP/2 client to the same stub.
        .executableTarget(
            name: "push-bench",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "AlertsService", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "FareLensTesting", package: "FareLens"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/PushBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// Alert decisions through the bus, and outbox delivery to a local receiver.
        .executableTarget(
            name: "alerts-benchmarks",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "AlertsService", package: "FareLens"),
                .product(name: "ScoringService", package: "FareLens"),
                .product(name: "FareLensWire", package: "FareLens"),
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "FareLensRuntime", package: "FareLens"),
                .product(name: "FareLensServiceKit", package: "FareLens"),
                .product(name: "FareLensStore", package: "FareLens"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Sources/AlertsBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        /// Distinct user searches through the in-process bus to the real search
        /// service for a duration: searches/s and RSS per minute (flat and bounded expected).
        .executableTarget(
            name: "soak-benchmarks",
            dependencies: [
                "BenchmarkHarness",
                .product(name: "FareLensBus", package: "FareLens"),
                .product(name: "FareLensMessages", package: "FareLens"),
                .product(name: "FareLensRuntime", package: "FareLens"),
                .product(name: "FareLensServiceKit", package: "FareLens"),
                .product(name: "FareLensStore", package: "FareLens"),
                .product(name: "SearchService", package: "FareLens"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            path: "Sources/SoakBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
