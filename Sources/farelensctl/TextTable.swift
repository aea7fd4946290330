import Foundation

/// A plain left-aligned text table for terminal output.
struct TextTable {
    let header: [String]
    var rows: [[String]] = []

    init(_ header: String...) { self.header = header }

    /// Adds a row; control characters in its cells are shown as `\u{1B}`,
    /// so text a node stored (an email from before such input was refused)
    /// cannot move the cursor or recolour the operator's terminal.
    mutating func add(_ row: String...) { rows.append(row.map(Self.visible)) }

    /// `text` with each control character (C0, DEL, C1) written as `\u{XX}`.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) { shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" } else { shown.unicodeScalars.append(scalar) }
        }
        return shown
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F ... 0x9F).contains(scalar.value)
    }

    /// The table for this terminal: ``rendered(unicode:)`` with Unicode when
    /// the locale is UTF-8 (as `history`'s chart decides), ASCII otherwise.
    var rendered: String { rendered(unicode: Self.terminalTakesUnicode) }

    /// Whether the first of LC_ALL, LC_CTYPE and LANG that is set names a UTF-8 codeset.
    static let terminalTakesUnicode = ScoringArguments.utf8Locale(ProcessInfo.processInfo.environment)

    /// The table as text; without `unicode`, the typographic glyphs the
    /// commands put in cells (`→`, `·`, `…`, dashes) are written in ASCII, as
    /// the price chart falls back under `LC_ALL=C`. Other text (a city's
    /// name) is left as the node gave it.
    func rendered(unicode: Bool) -> String {
        guard !unicode else { return Self.layout([header] + rows) }
        return Self.layout(([header] + rows).map { $0.map(Self.ascii) })
    }

    /// `text` with each glyph of ``asciiFallbacks`` replaced.
    static func ascii(_ text: String) -> String {
        guard text.contains(where: { asciiFallbacks[$0] != nil }) else { return text }
        return text.map { asciiFallbacks[$0] ?? String($0) }.joined()
    }

    /// The glyphs the commands put in table cells, and what stands for each in ASCII.
    static let asciiFallbacks: [Character: String] = [
        "→": "->", "←": "<-", "·": "-", "…": "...", "—": "-", "–": "-", "≥": ">=", "≤": "<=", "±": "+/-", "×": "x",
        "✓": "yes", "✗": "no", "⚠": "!",
    ]

    private static func layout(_ all: [[String]]) -> String {
        let header = all[0]
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
