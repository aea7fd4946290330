import Crypto
import FareLensBus
import Foundation
import SwiftProtobuf
import Testing

@testable import FareLensMessages

/// The descriptor set committed beside the generated messages
/// (Sources/FareLensMessages/Generated/README.md).
@Suite("the committed descriptor set")
struct FareLensDescriptorsTests {
    static let protos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Protos")

    @Test("it was generated from the .proto files as they are: edit one without running ops/gen-protos.sh and this fails")
    func current() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.protos.path).filter { $0.hasSuffix(".proto") }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(names.count >= 10)
        var hash = SHA256()
        for name in names { hash.update(data: try Data(contentsOf: Self.protos.appendingPathComponent(name))) }
        let digest = hash.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(digest == FareLensDescriptors.protosSHA256, "run ops/gen-protos.sh")
    }

    @Test("it decodes and describes every event type and every response farelensctl prints as protobuf JSON")
    func describes() {
        let printer = ProtoJSONWithDefaults.fareLens
        let responses: [any SwiftProtobuf.Message.Type] = [
            AlertHistoryResponse.self, MuteRouteResponse.self, UnmuteRouteResponse.self, PauseAlertsResponse.self, ResumeAlertsResponse.self,
            AlertSettingsResponse.self, ReplayAlertsResponse.self, SetAsideEventsResponse.self, RetrySetAsideResponse.self,
        ]
        for type in responses { #expect(printer.knows(type), "\(type)") }
        for type in MessageCatalog.events {
            guard let message = type as? any SwiftProtobuf.Message.Type else {
                Issue.record("\(type) is not a protobuf message")
                continue
            }
            #expect(printer.knows(message), "\(type)")
        }
    }
}
