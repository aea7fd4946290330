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

    var rendered: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
