@testable import AnalyticsService
import Testing

@Suite("Finding a user id in an event's text")
struct EventScrubberTests {
    @Test("a byte search: found at the start, inside and at the end; not found when absent, longer, or only a prefix matches; an empty id is everywhere")
    func occurs() {
        #expect(EventScrubber.occurs("u-ana", in: "u-ana decided"))
        #expect(EventScrubber.occurs("u-ana", in: "{\"reason\":\"decided for u-ana today\"}"))
        #expect(EventScrubber.occurs("u-ana", in: "for u-ana"))
        #expect(EventScrubber.occurs("aab", in: "aaab"))
        #expect(EventScrubber.occurs("é-1", in: "café-1"))
        #expect(!EventScrubber.occurs("u-ana", in: "u-an"))
        #expect(!EventScrubber.occurs("u-ana", in: "u-anb u-bna"))
        #expect(!EventScrubber.occurs("u-ana", in: ""))
        #expect(EventScrubber.occurs("", in: "anything"))
    }
}
