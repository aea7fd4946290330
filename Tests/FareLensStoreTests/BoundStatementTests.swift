import FareLensStore
import Foundation
import GRDB
import GRDBSQLite
import Testing

/// `Statement.executeBinding`: the C-interface binding the ingest paths use
/// instead of GRDB's arguments (docs/decisions/0007) behaves like GRDB's.
@Suite("Statements bound through SQLite's C interface")
struct BoundStatementTests {
    private func queue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (name))")
        }
        return queue
    }

    @Test("text and integers arrive as bound, including non-ASCII text, the empty string and Int64's extremes; the changed-row count is SQLite's")
    func valuesRoundTrip() throws {
        let queue = try queue()
        let rows: [(String, Int64)] = [("Zürich–São Paulo ✈︎", .min), ("", .max), ("LIS", 0)]
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO t (name, value) VALUES (?, ?)")
            for (name, value) in rows {
                #expect(try insert.executeBinding { $0.bind(name); $0.bind(value) } == 1)
            }
            #expect(try insert.executeBinding { $0.bind("LIS"); $0.bind(7) } == 0, "ignored: nothing changed")
        }
        let read = try queue.read { db in try Row.fetchAll(db, sql: "SELECT name, value FROM t ORDER BY value") }
        #expect(read.map { $0["name"] as String } == rows.sorted { $0.1 < $1.1 }.map(\.0))
        #expect(read.map { $0["value"] as Int64 } == rows.map(\.1).sorted())
    }

    @Test("reals and booleans are stored as GRDB stores them: a double exactly, a Bool as 0 or 1")
    func realsAndBooleans() throws {
        let queue = try DatabaseQueue()
        let values: [(Double, Bool)] = [(163.2, true), (-0.1, false), (.greatestFiniteMagnitude, true)]
        let (bound, viaGRDB) = try queue.write { db in
            try db.execute(sql: "CREATE TABLE r (id INTEGER PRIMARY KEY, real REAL NOT NULL, flag BOOLEAN NOT NULL)")
            let insert = try db.cachedStatement(sql: "INSERT INTO r (real, flag) VALUES (?, ?)")
            for (real, flag) in values { try insert.executeBinding { $0.bind(real); $0.bind(flag) } }
            for (real, flag) in values { try db.execute(sql: "INSERT INTO r (real, flag) VALUES (?, ?)", arguments: [real, flag]) }
            let rows = try Row.fetchAll(db, sql: "SELECT real, flag, typeof(real), typeof(flag) FROM r ORDER BY id")
            return (Array(rows.prefix(values.count)), Array(rows.suffix(values.count)))
        }
        #expect(bound == viaGRDB)
        #expect(bound.map { $0[0] as Double } == values.map(\.0))
        #expect(bound.map { $0[1] as Bool } == values.map(\.1))
    }

    @Test("text is stored as GRDB stores it: small and large strings either side of 15 bytes, non-ASCII, an embedded NUL (which ends it), the empty string (text, not NULL)")
    func textAsGRDBStoresIt() throws {
        let queue = try DatabaseQueue()
        let texts = ["", "LIS", "123456789012345", "1234567890123456", "a\u{0}b", "Zürich–São Paulo ✈︎", String(repeating: "é", count: 300)]
        let (bound, viaGRDB) = try queue.write { db in
            try db.execute(sql: "CREATE TABLE s (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
            let insert = try db.cachedStatement(sql: "INSERT INTO s (text) VALUES (?)")
            for text in texts { try insert.executeBinding { $0.bind(text) } }
            for text in texts { try db.execute(sql: "INSERT INTO s (text) VALUES (?)", arguments: [text]) }
            let rows = try Row.fetchAll(db, sql: "SELECT text, length(CAST(text AS BLOB)), typeof(text) FROM s ORDER BY id")
            return (Array(rows.prefix(texts.count)), Array(rows.suffix(texts.count)))
        }
        #expect(bound == viaGRDB)
        // GRDB binds a string as a C string: an embedded NUL ends it.
        let stored = texts.map { String($0.prefix { $0 != "\u{0}" }) }
        #expect(stored[4] == "a")
        #expect(bound.map { $0[0] as String } == stored)
        #expect(bound.map { $0[1] as Int } == stored.map(\.utf8.count))
        #expect(bound.allSatisfy { ($0[2] as String) == "text" })
    }

    @Test("a failing step throws SQLite's code, and the statement runs again afterwards")
    func constraintFailureIsNamed() throws {
        let queue = try queue()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (name, value) VALUES (?, ?)")
            try insert.executeBinding { $0.bind("A"); $0.bind(1) }
            let duplicate = #expect(throws: DatabaseError.self) { try insert.executeBinding { $0.bind("A"); $0.bind(2) } }
            #expect(duplicate?.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
            #expect(try insert.executeBinding { $0.bind("B"); $0.bind(2) } == 1)
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT SUM(value) FROM t") } == 3)
    }

    @Test("binding one value too many fails with SQLITE_RANGE before anything is written")
    func tooManyValues() throws {
        let queue = try queue()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (name, value) VALUES (?, ?)")
            let error = #expect(throws: DatabaseError.self) { try insert.executeBinding { $0.bind("A"); $0.bind(1); $0.bind(2) } }
            #expect(error?.resultCode == .SQLITE_RANGE)
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test("values past the lent buffer's 1,024 bytes are copied by SQLite: a row of long texts and a blob arrives whole, in order")
    func valuesPastTheLentBuffer() throws {
        let queue = try DatabaseQueue()
        // 5 × 300 bytes: the first three fit the lent buffer, the fourth does not, the fifth and the blob do not either.
        let texts = (0..<5).map { index in String(repeating: Character(String(UnicodeScalar(UInt8(65 + index)))), count: 300) }
        let blob = [UInt8](repeating: 7, count: 900)
        let row = try queue.write { db in
            try db.execute(sql: "CREATE TABLE l (a TEXT, b TEXT, c TEXT, d TEXT, e TEXT, f BLOB, g TEXT)")
            let insert = try db.cachedStatement(sql: "INSERT INTO l VALUES (?, ?, ?, ?, ?, ?, ?)")
            try insert.executeBinding { values in
                for text in texts { values.bind(text) }
                values.bind(blob: blob)
                values.bind("short")
            }
            return try Row.fetchOne(db, sql: "SELECT * FROM l")
        }
        #expect((0..<5).map { row?[$0] as String? } == texts)
        #expect((row?[5] as Data?).map(Array.init) == blob)
        #expect(row?[6] as String? == "short")
    }

    @Test("no binding outlives the call, which lent its bytes from its own stack: afterwards, and after a failed step, every parameter is NULL")
    func bindingsClearedAfterTheCall() throws {
        let queue = try queue()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (name, value) VALUES (?, ?)")
            let unbound = "INSERT INTO t (name, value) VALUES (NULL, NULL)"
            try insert.executeBinding { $0.bind("lent text"); $0.bind(1) }
            #expect(Self.expandedSQL(insert) == unbound)
            let duplicate = #expect(throws: DatabaseError.self) { try insert.executeBinding { $0.bind("lent text"); $0.bind(2) } }
            #expect(duplicate?.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
            #expect(Self.expandedSQL(insert) == unbound)
        }
        #expect(try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM t") } == ["lent text"])
    }

    /// The statement's SQL with its bound values in place (SQLite's `sqlite3_expanded_sql`).
    private static func expandedSQL(_ statement: Statement) -> String? {
        guard let expanded = sqlite3_expanded_sql(statement.sqliteStatement) else { return nil }
        defer { sqlite3_free(expanded) }
        return String(cString: expanded)
    }
}
