import FareLensMessages
import Testing
@testable import AnalyticsService

/// The alerts report's rows name each decision by its one name, the one
/// metrics and `farelensctl alerts history --decision` use (issue #63, item 5).
@Suite("Decision names in reports")
struct DecisionNameTests {
    @Test("the alerts report has a row for each recorded decision, named as AlertDecision.name names it: sent … stale_price, not_alertable")
    func everyDecision() async throws {
        let fixture = try AnalyticsFixture()
        await fixture.publish(AlertDecision.recorded.enumerated().map { index, decision in
            Make.decided("a\(index)", "u-ana", decision, at: ms("2026-09-20"))
        })
        let report = try await fixture.report(.alerts, "2026-09-20", "2026-09-20")
        let words = lines(report).map(\.dimension).filter { !$0.isEmpty }
        #expect(words == ["capped", "deduped", "held", "muted", "not_alertable", "sent", "stale_price"])
        #expect(Set(words) == Set(AlertDecision.recorded.compactMap(\.name)))
    }
}
