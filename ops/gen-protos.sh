#!/usr/bin/env bash
# Regenerates Sources/FareLensMessages/Generated/*.pb.swift from Protos/*.proto.
#
# Needs Debian's protoc (apt-get install protobuf-compiler) and protoc-gen-swift
# built from the swift-protobuf version pinned in Package.swift. The plugin is
# built once into a scratch directory outside the package (about 10 minutes on
# 2 cores) and never in CI; the generated Swift is committed.
#
#   ops/gen-protos.sh                      # builds the plugin if missing, then generates
#   PROTOC_GEN_SWIFT=/path/to/plugin ops/gen-protos.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version="1.39.0"   # keep equal to the swift-protobuf pin in Package.swift
scratch="${FARELENS_PROTOC_SCRATCH:-$PWD/.build-protoc}"
plugin="${PROTOC_GEN_SWIFT:-$scratch/.build/release/protoc-gen-swift}"

command -v protoc >/dev/null || { echo "gen-protos: protoc not found; install Debian's protobuf-compiler" >&2; exit 1; }

if [ ! -x "$plugin" ]; then
  echo "gen-protos: building protoc-gen-swift $version into $scratch (one-off, ~10 min)" >&2
  mkdir -p "$scratch"
  cat > "$scratch/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "ProtocPlugin",
    dependencies: [.package(url: "https://github.com/apple/swift-protobuf", exact: "$version")],
    targets: []
)
SWIFT
  swift build -c release --product protoc-gen-swift --package-path "$scratch" --scratch-path "$scratch/.build"
fi

out="Sources/FareLensMessages/Generated"
rm -f "$out"/*.pb.swift
protoc --plugin=protoc-gen-swift="$plugin" \
  --swift_opt=Visibility=Public --swift_opt=FileNaming=DropPath --swift_opt=UseAccessLevelOnImports=true \
  --proto_path=Protos --swift_out="$out" Protos/*.proto
echo "gen-protos: $(ls "$out"/*.pb.swift | wc -l) files in $out ($(protoc --version), protoc-gen-swift $version)"
