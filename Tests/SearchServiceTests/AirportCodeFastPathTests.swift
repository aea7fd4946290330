import Foundation
@testable import SearchService
import Testing

/// The ASCII fast path of `validatedCode` gives what the general path
/// (Foundation's whitespace trimming and upper-casing) gives, and is taken
/// for every plain code.
@Suite("Airport code fast path")
struct AirportCodeFastPathTests {
    static let edges = ["", " ", "\t", " \t ", "\u{00A0}", "\u{2003}", "\n", "\u{3000}"]
    static let bodies = [
        "lhr", "LHR", "LhR", "jFk", "zzz", "aaa", "lh", "lhrx", "l1r", "l r", "lh ", "@hr", "[hr", "`hr", "{hr",
        "éhr", "ＬＨＲ", "lhr\u{301}", "ß", "ıst", "i̇st", "\u{0}hr", "LH\u{7F}",
    ]

    @Test("for every body between every pair of edges, the fast path is taken exactly when the general path yields three ASCII letters from ASCII input trimmed of spaces and tabs, and gives the same code")
    func agreesWithFoundation() {
        var taken = 0
        for leading in Self.edges {
            for body in Self.bodies {
                for trailing in Self.edges {
                    let raw = leading + body + trailing
                    let general = raw.trimmingCharacters(in: .whitespaces).uppercased()
                    let fast = AirportDirectory.plainASCIICode(raw)
                    let plain = raw.utf8.allSatisfy { $0 < 0x80 }
                        && raw.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) == raw.trimmingCharacters(in: .whitespaces)
                    let threeLetters = general.utf8.count == 3 && general.allSatisfy { $0.isASCII && $0.isLetter }
                    if let fast {
                        taken += 1
                        #expect(fast == general, "\(raw.debugDescription)")
                    } else {
                        #expect(!(plain && threeLetters), "not taken for \(raw.debugDescription)")
                    }
                }
            }
        }
        #expect(taken > 0)
    }

    @Test("a code on the fast path is still checked against the directory, naming the field")
    func unknownOnFastPath() throws {
        let directory = try AirportDirectory.bundled()
        #expect(try directory.validatedCode(" lhr\t", field: "origin") == "LHR")
        #expect(throws: SearchError.unknownAirport("QQQ", field: "origin")) { try directory.validatedCode("qqq", field: "origin") }
        #expect(throws: SearchError.invalidField("origin", "'l1r' is not a three-letter IATA code")) { try directory.validatedCode("l1r", field: "origin") }
    }
}
