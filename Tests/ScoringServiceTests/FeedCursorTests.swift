import Testing
@testable import ScoringService

@Suite("The feed's page cursor")
struct FeedCursorTests {
    @Test("a cursor names its offset and reads back; the empty one is the first page", arguments: [0, 20, 40, 1000])
    func roundTrip(offset: Int) throws {
        let cursor = FeedCursor.cursor(offset: offset)
        #expect(!cursor.contains("=") && !cursor.contains("/") && !cursor.contains("+"))
        #expect(try FeedCursor.offset(cursor) == offset)
        #expect(try FeedCursor.offset("") == 0)
    }

    @Test("a cursor the feed did not give is refused naming the cursor", arguments: ["x", FeedCursor.cursor(offset: 1001), "ZjEuLTE", String(repeating: "A", count: 40)])
    func refused(cursor: String) {
        let error = #expect(throws: ScoringError.self) { try FeedCursor.offset(cursor) }
        #expect(error?.code == "invalid-cursor" && error?.field == "cursor")
    }
}
