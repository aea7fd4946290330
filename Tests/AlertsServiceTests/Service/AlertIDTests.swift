@testable import AlertsService
import Foundation
import Testing

/// Alert ids: unique even at one instant, ordered by time.
@Suite("Alert ids")
struct AlertIDTests {
    @Test("200,000 ids made at one instant (a batch, or a stopped demo clock) are all different")
    func uniqueAtOneInstant() {
        let instant = Date(timeIntervalSince1970: 1_800_000_000)
        let ids = (0 ..< 200_000).map { _ in AlertsService.newAlertID(at: instant) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 29 && $0.hasPrefix("a") })
    }

    @Test("a later millisecond sorts after an earlier one, as text")
    func orderedByTime() {
        let earlier = AlertsService.newAlertID(at: Date(timeIntervalSince1970: 1_800_000_000))
        let later = AlertsService.newAlertID(at: Date(timeIntervalSince1970: 1_800_000_000.001))
        #expect(earlier < later)
    }

    @Test("an id is \"a\", the Unix milliseconds in 12 lower-case hex digits, then 16 random hex digits")
    func layout() {
        let id = AlertsService.newAlertID(at: Date(timeIntervalSince1970: 1_800_000_000.5))
        #expect(id.dropFirst().prefix(12) == "01a3185c51f4")
        #expect(id.count == 29 && id.dropFirst().allSatisfy { "0123456789abcdef".contains($0) })
    }
}
