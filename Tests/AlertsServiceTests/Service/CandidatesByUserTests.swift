@testable import AlertsService
import FareLensMessages
import FareLensStore
import Foundation
import Testing

/// How a batch's candidates are grouped before they compete
/// (`AlertsService.candidatesByUser`): by user, in user order, each user's
/// in the order of the events, users subscription does not know left out.
@Suite struct CandidatesByUserTests {
    static func candidate(_ userID: String, to destination: String) -> AlertCandidate {
        AlertCandidate(
            userID: userID, kind: .thresholdCrossed, origin: "LHR", destination: destination,
            price: Money(minorUnits: 38_000, currency: "GBP"), queueScore: AlertsService.thresholdQueueScore)
    }

    static func event(_ sequence: UInt64, _ candidates: [AlertCandidate]) -> PendingEvent {
        PendingEvent(key: InboxKey(publisher: "watchlist", sequence: sequence), consumer: "alerts.test", candidates: candidates)
    }

    @Test("each known user once, in user order, with their candidates in event order (and within an event, its order); unknown users left out")
    func groupedByUser() {
        let pending = [
            Self.event(1, [Self.candidate("u2", to: "JFK"), Self.candidate("u1", to: "NRT")]),
            Self.event(2, [Self.candidate("unknown", to: "CDG")]),
            Self.event(3, [Self.candidate("u1", to: "LAX"), Self.candidate("u2", to: "SFO"), Self.candidate("u1", to: "SYD")]),
            Self.event(4, []),
            Self.event(5, [Self.candidate("u10", to: "DEL"), Self.candidate("", to: "LIS")]),
        ]
        var known: [String: AlertRecipient] = [:]
        for userID in ["u1", "u2", "u10"] {
            known[userID] = AlertRecipient(userID: userID, zone: .gmt, dailyCap: 3, tier: .free)
        }
        let byUser = AlertsService.candidatesByUser(pending, known: known)
        #expect(byUser.map(\.recipient.userID) == ["u1", "u10", "u2"])
        #expect(byUser.map { $0.candidates.map(\.destination) } == [["NRT", "LAX", "SYD"], ["DEL"], ["JFK", "SFO"]])
        #expect(byUser.allSatisfy { user in user.candidates.allSatisfy { $0.userID == user.recipient.userID } })
        #expect(AlertsService.candidatesByUser([], known: known).isEmpty)
        #expect(AlertsService.candidatesByUser(pending, known: [:]).isEmpty)
    }
}
