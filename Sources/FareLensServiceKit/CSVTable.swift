/// Reads the bundled data files: RFC 4180 CSV (quoted fields may hold
/// commas and doubled quotes; no embedded newlines in our files).
/// Hand-written instead of a dependency: see docs/decisions/0004-bundled-csv-reader.md.
/// Shared by the services that bundle real data (search, scoring).
public struct CSVTable: Sendable {
    /// The first line's fields.
    public let header: [String]
    /// Every other line's fields, as many as the header's.
    public let rows: [[String]]
    /// The file's name without `.csv`, for errors.
    public let name: String

    /// Parses `text`; a line with another field count than the header is an error.
    public init(text: String, name: String) throws(BundledDataError) {
        self.name = name
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let header = lines.isEmpty ? [] : Self.fields(lines.removeFirst())
        let rows = lines.map(Self.fields)
        if let bad = rows.firstIndex(where: { $0.count != header.count }) {
            throw BundledDataError(file: name + ".csv", reason: "line \(bad + 2) has \(rows[bad].count) fields, the header \(header.count)")
        }
        self.header = header
        self.rows = rows
    }

    /// The column index of `column`.
    public func column(_ column: String) throws(BundledDataError) -> Int {
        guard let index = header.firstIndex(of: column) else {
            throw BundledDataError(file: name + ".csv", reason: "no column '\(column)' (regenerate with ops/data/derive.py)")
        }
        return index
    }

    /// The fields of one line.
    public static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch (character, quoted) {
            case ("\"", true):
                // A doubled quote inside a quoted field is one quote.
                if let next = iterator.next() {
                    if next == "\"" { current.append("\"") } else {
                        quoted = false
                        if next == "," { fields.append(current); current = "" } else { current.append(next) }
                    }
                } else { quoted = false }
            case ("\"", false) where current.isEmpty: quoted = true
            case (",", false): fields.append(current); current = ""
            default: current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}

/// A bundled data file is missing or malformed: a packaging fault, reported at start-up.
public struct BundledDataError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let reason: String
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
    public var description: String { "data file \(file): \(reason)" }
}
