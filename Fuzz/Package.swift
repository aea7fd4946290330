// swift-tools-version: 6.0
import PackageDescription

/// libFuzzer target for the bridge's frame decoder and envelope decoding.
/// Sources/FrameFuzzer holds symlinks to the real FareLensWire and generated
/// message files, so the fuzzer always exercises the code the bridge runs.
/// Build and run with `ops/fuzz.sh`; see README.md.
let package = Package(
    name: "FareLensFuzz",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "FrameFuzzer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
)
