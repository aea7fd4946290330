import Foundation
@testable import FareLensGateway
import Testing

@Suite("The request ids the gateway makes")
struct RequestIDTests {
    @Test("an id is a version-4 UUID's lowercase text: Foundation parses it back to the same 128 bits, version 4, variant 10")
    func versionFourText() throws {
        for _ in 0..<1_000 {
            let text = RequestID.random()
            let uuid = try #require(UUID(uuidString: text), "\(text)")
            #expect(uuid.uuidString.lowercased() == text)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "\(text)")
            #expect(bytes[8] >> 6 == 0b10, "\(text)")
        }
    }

    @Test("the bits are laid out as a UUID's: high then low, most significant first, apart from the version and variant bits")
    func layout() {
        #expect(RequestID.text(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210) == "01234567-89ab-4def-bedc-ba9876543210")
        #expect(RequestID.text(high: 0, low: 0) == "00000000-0000-4000-8000-000000000000")
        #expect(RequestID.text(high: .max, low: .max) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
    }

    @Test("ten thousand ids are all different")
    func distinct() {
        let ids = (0..<10_000).map { _ in RequestID.random() }
        #expect(Set(ids).count == ids.count)
    }
}
