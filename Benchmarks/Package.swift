// swift-tools-version: 6.2
import PackageDescription

/// Benchmarks live in their own package so the test build never compiles
/// them. Run: `swift run -c release --package-path Benchmarks bus-benchmarks`.
let package = Package(
    name: "FareLensBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "FareLens", path: "..")],
    targets: [
        .executableTarget(
            name: "bus-benchmarks",
            dependencies: [.product(name: "FareLensBus", package: "FareLens")],
            path: "Sources/BusBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        )
    ]
)
