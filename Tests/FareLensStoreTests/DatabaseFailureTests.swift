import FareLensStore
import GRDB
import Testing

/// Telling a failure of the data written from a failure of the database.
@Suite struct DatabaseFailureTests {
    @Test("the failure is told by SQLite's code: a constraint, a mismatch, a value too big or out of range is the data's; a full disk, an I/O error, a corrupt file or a busy database is not")
    func dataErrors() {
        for code in [ResultCode.SQLITE_CONSTRAINT, .SQLITE_CONSTRAINT_TRIGGER, .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_MISMATCH, .SQLITE_TOOBIG, .SQLITE_RANGE] {
            #expect(DatabaseFailure.isCausedByData(DatabaseError(resultCode: code)), "\(code)")
        }
        for code in [ResultCode.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_IOERR_WRITE, .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_NOMEM, .SQLITE_ERROR] {
            #expect(!DatabaseFailure.isCausedByData(DatabaseError(resultCode: code)), "\(code)")
        }
        #expect(!DatabaseFailure.isCausedByData(CancellationError()))
    }

    @Test("a summary names SQLite's extended code and message, not the statement's arguments")
    func summary() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT UNIQUE)") }
        try queue.write { db in try db.execute(sql: "INSERT INTO t (email) VALUES (?)", arguments: ["ann@example.com"]) }
        do {
            try queue.write { db in try db.execute(sql: "INSERT INTO t (email) VALUES (?)", arguments: ["ann@example.com"]) }
            Issue.record("a duplicate was inserted")
        } catch {
            #expect(DatabaseFailure.summary(error) == "SQLite error 2067: UNIQUE constraint failed: t.email")
            #expect(DatabaseFailure.isCausedByData(error))
        }
    }
}
