import Testing
@testable import farelensctl

/// Tables fall back to ASCII where the terminal's locale is not UTF-8, as
/// `history`'s chart does (issue #63: `→` under `LC_ALL=C`).
@Suite("farelensctl tables in ASCII")
struct TableASCIITests {
    @Test("without a UTF-8 locale a table's arrows, dots, ellipses and dashes are ASCII; with one they are as given; names are left alone")
    func asciiFallback() {
        var table = TextTable("ROUTE", "DATES", "NOTE")
        table.add("LHR→JFK", "2027-01-15 → 2027-01-22", "1–20 of 31 · watched ×1.2…  Cancún")
        let ascii = table.rendered(unicode: false)
        #expect(ascii.unicodeScalars.allSatisfy { $0.isASCII || "Cancún".unicodeScalars.contains($0) }, "\(ascii)")
        #expect(ascii.contains("LHR->JFK") && ascii.contains("2027-01-15 -> 2027-01-22") && ascii.contains("1-20 of 31 - watched x1.2...  Cancún"), "\(ascii)")
        #expect(table.rendered(unicode: true).contains("LHR→JFK"))
    }

    @Test("the locale decides as for the chart: LC_ALL=C is ASCII even when LANG is UTF-8")
    func locale() {
        #expect(!ScoringArguments.utf8Locale(["LC_ALL": "C", "LANG": "en_US.UTF-8"]))
        #expect(ScoringArguments.utf8Locale(["LANG": "en_US.UTF-8"]))
    }
}
