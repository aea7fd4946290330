@testable import AlertsService
import FareLensMessages
import Foundation
import GRDB
import Testing

/// `AlertRow.insertFast` binds its columns by hand (docs/decisions/0007):
/// it must store exactly what GRDB's own insert of the record stores.
@Suite struct AlertRowStorageTests {
    @Test("insertFast stores every column as GRDB's insert does, and the row reads back equal")
    func insertFastMatchesGRDB() throws {
        var row = AlertPayloadTests.row(title: "Tokyo fell to ¥65,000")
        // Every column away from its default, so a swapped or missing binding shows.
        row.quietException = true
        row.simulated = true
        row.queueScore = 163.2
        row.deliveryError = "HTTP 500"
        row.attempts = 3
        row.deliveredAtUnixMs = 1_790_000_100_000
        row.digestDueAtUnixMs = 1_790_000_200_000
        row.digestAlertID = "a-digest"
        row.watchlistID = "w-9"
        row.recheck = RecheckOutcome.confirmed.rawValue
        row.expiresAtUnixMs = 1_790_300_000_000
        var viaGRDB = row
        viaGRDB.alertID = "b-other"
        let queue = try DatabaseQueue()
        let (fast, grdb, readBack) = try queue.write { db in
            try AlertRow.migrate(db)
            try AlertRow.migrateRecheck(db)
            try AlertRow.migrateExpiry(db)
            try row.insertFast(db, sequence: 1)
            try viaGRDB.insert(db)
            let columns = AlertRow.columnNames.filter { $0 != "alertID" }.joined(separator: ", ")
            let fast = try Row.fetchOne(db, sql: "SELECT \(columns) FROM alert WHERE alertID = ?", arguments: [row.alertID])
            let grdb = try Row.fetchOne(db, sql: "SELECT \(columns) FROM alert WHERE alertID = ?", arguments: [viaGRDB.alertID])
            return (fast, grdb, try AlertRow.fetchOne(db, key: row.alertID))
        }
        #expect(fast != nil && fast == grdb)
        #expect(readBack == row)
        // Published with it: the track record labels simulated fares.
        #expect(readBack?.message.simulated == true)
    }

    @Test("the actions column round-trips every list of actions, and reads a column written with spaces or empty parts as the old split did")
    func actionsColumn() {
        let lists: [[AlertAction]] = [[], [.view], [.view, .muteRoute, .pause], [.pause, .view], [.view, .pause], [.muteRoute, .muteRoute]]
        for actions in lists {
            #expect(AlertRow.actions(AlertRow.column(actions)) == actions, "\(actions)")
        }
        #expect(AlertRow.column([.view, .muteRoute, .pause]) == "1,2,3")
        #expect(AlertRow.actions("1,,3") == [.view, .pause])
        #expect(AlertRow.actions("") == [])
        #expect(AlertRow.actions("2,") == [.muteRoute])
    }

    @Test("the policy's state query reads sent decisions through alert_sent_by_user, which holds only sent rows and follows a row whose decision changes")
    func sentIndex() throws {
        let database = try AlertsFixture.database("alerts", AlertsServiceEntry.migrations)
        let (plan, indexed) = try database.writer.write { db in
            var sent = AlertPayloadTests.row(title: "sent")
            sent.decision = AlertDecision.sent.rawValue
            var held = AlertPayloadTests.row(title: "held")
            held.alertID = "b-held"
            held.decision = AlertDecision.held.rawValue
            try sent.insertFast(db, sequence: 1)
            try held.insertFast(db, sequence: 2)
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + AlertRow.sentSinceSQL, arguments: ["[\"u\"]", 0]).map { $0["detail"] as String }
            // Only the sent row is in the index; a stale-price re-check turning it into another decision takes it out.
            var indexed = [try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM alert INDEXED BY alert_sent_by_user WHERE userID = ? AND decision = 1", arguments: [sent.userID])]
            try db.execute(sql: "UPDATE alert SET decision = ? WHERE alertID = ?", arguments: [AlertDecision.stalePrice.rawValue, sent.alertID])
            indexed.append(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM alert INDEXED BY alert_sent_by_user WHERE userID = ? AND decision = 1", arguments: [sent.userID]))
            return (plan, indexed)
        }
        #expect(plan.contains { $0.contains("alert_sent_by_user") }, "\(plan)")
        #expect(indexed == [1, 0])
    }
}
