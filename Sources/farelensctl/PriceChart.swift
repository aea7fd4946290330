import FareLensMessages

/// A price chart for the terminal (farelensctl history).
///
/// Pure: `render` returns the text and touches nothing else. The y-axis has
/// 3–5 round labels (`Money.formatted`, so the currency's symbol and minor
/// units); the x-axis is labelled with the first and last day. The daily line
/// is a step line (the price holds until the next observation, gaps included)
/// and every drawn element is named in a one-line legend under the chart.
struct PriceChart {
    struct Point { var day: Int /* days since epoch */; var price: Int64 /* minor units */ }
    var series: [Point]            // the 30-day series, any gaps allowed, oldest first
    var average90: Int64?          // horizontal line
    var typicalLow: Int64?, typicalHigh: Int64?   // shaded band
    var dealZoneBelow: Int64?      // prices at or below this are the "deal zone" (marked region)
    var today: Point?              // today's price, marked
    var currency: String

    /// What an empty series renders as.
    static let noHistory = "no history for this route yet"

    /// The chart: `height` plot rows (at least 5) with the y labels on the
    /// left, the x-axis, its first and last dates and the legend, every line
    /// filling but never exceeding `width` Characters (cut as a last resort
    /// only on a terminal too narrow for labels and dates). Unicode mode uses
    /// single-width box and block glyphs only; ASCII mode printable ASCII only.
    func render(width: Int = 80, height: Int = 16, unicode: Bool) -> String {
        guard !series.isEmpty else { return Self.noHistory }
        let glyphs = unicode ? Glyphs.unicode : Glyphs.ascii
        let axis = YAxis(values: series.map(\.price) + [average90, typicalLow, typicalHigh, dealZoneBelow, today?.price].compactMap { $0 },
                         maxRows: max(height, 5))
        let labels = axis.labels.map { Self.label($0, currency: currency, unicode: unicode) }
        let labelWidth = labels.map(\.count).max() ?? 0
        let plotWidth = max(width - labelWidth - 2, 2)
        var canvas = Canvas(rows: axis.rows, columns: plotWidth)

        // Background: the deal zone (at and below its row) wins over the typical band.
        let dealRow = dealZoneBelow.map(axis.row)
        if let typicalLow, let typicalHigh {
            for row in axis.row(max(typicalLow, typicalHigh)) ... axis.row(min(typicalLow, typicalHigh)) where dealRow.map({ row < $0 }) ?? true {
                canvas.fill(row: row, with: .band)
            }
        }
        if let dealRow { for row in dealRow ..< axis.rows { canvas.fill(row: row, with: .deal) } }
        if let average90 { canvas.fill(row: axis.row(average90), with: .average) }

        // The step line, then today's marker on top.
        let points = series.sorted { $0.day < $1.day }
        let firstDay = min(points[0].day, today?.day ?? .max), lastDay = max(points[points.count - 1].day, today?.day ?? .min)
        func column(_ day: Int) -> Int {
            lastDay == firstDay ? 0 : Int((Double(day - firstDay) * Double(plotWidth - 1) / Double(lastDay - firstDay)).rounded())
        }
        let cells = points.map { (column($0.day), axis.row($0.price)) }
        canvas.connect(cells)
        if let today { canvas.mark(row: axis.row(today.price), column: column(today.day)) }

        // Left axis with labels, bottom axis, dates, legend.
        let plot = (0 ..< axis.rows).map { canvas.text(row: $0, glyphs) }
        var lines: [String] = []
        for (row, cells) in plot.enumerated() {
            let label = axis.labelRows.firstIndex(of: row).map { labels[$0] } ?? ""
            let tick = label.isEmpty ? glyphs.axis : glyphs.tick
            lines.append(String(repeating: " ", count: labelWidth - label.count) + label + " " + String(tick) + cells)
        }
        let indent = String(repeating: " ", count: labelWidth + 1)
        lines.append(indent + String(glyphs.corner) + String(repeating: glyphs.rule, count: plotWidth))
        let first = CalendarDate(daysSinceEpoch: firstDay).description, last = CalendarDate(daysSinceEpoch: lastDay).description
        let gap = plotWidth + 1 - first.count - last.count
        lines.append(indent + (firstDay == lastDay || gap < 2 ? " " + first : " " + first + String(repeating: " ", count: gap - 1) + last))
        lines += legend(shown: Set(plot.joined()), glyphs, width: width)
        return lines.map { String($0.prefix(width)) }.joined(separator: "\n")
    }

    /// A y label by `Money.formatted`; in ASCII a non-ASCII symbol becomes the
    /// code after the amount, as for currencies without a symbol: "€812.00" → "812.00 EUR".
    static func label(_ minorUnits: Int64, currency: String, unicode: Bool) -> String {
        let money = Money(minorUnits: minorUnits, currency: currency), text = money.formatted
        guard !unicode, let symbol = Money.unambiguousSymbols[money.currency], !symbol.allSatisfy(\.isASCII) else { return text }
        return text.replacingOccurrences(of: symbol, with: "") + " " + money.currency
    }

    /// The glyphs that show in the plot, named, on one line (wrapped only if `width` is too narrow for it).
    /// The line is always there; the others only where they were not all drawn over.
    private func legend(shown: Set<Character>, _ glyphs: Glyphs, width: Int) -> [String] {
        let names: [(Character, String)] = [
            (glyphs.average, "90-day average"), (glyphs.band, "typical range"), (glyphs.deal, "deal zone"), (glyphs.today, "today"),
        ]
        let items = ["\(glyphs.lineSample) daily low"] + names.filter { shown.contains($0.0) }.map { "\($0.0) \($0.1)" }
        var lines: [String] = [], line = ""
        for item in items {
            if line.isEmpty { line = item } else if line.count + 2 + item.count <= width { line += "  " + item } else { lines.append(line); line = item }
        }
        return lines + [line]
    }
}

extension PriceChart {
    /// The characters of one mode.
    struct Glyphs: Sendable {
        let axis, tick, corner, rule: Character
        let band, deal, today, average, lineSample: Character
        /// Whether the average is drawn at a column (ASCII dashes it by leaving every other column to the background).
        let dashed: @Sendable (Int) -> Bool
        /// The line's glyph for a cell joined to its neighbours in these directions.
        let line: @Sendable (Canvas.Joins) -> Character

        static let unicode = Glyphs(
            axis: "│", tick: "┤", corner: "└", rule: "─", band: "░", deal: "╱", today: "█", average: "┄", lineSample: "─",
            dashed: { _ in true },
            line: { joins in
                switch joins {
                case [.left, .up]: "╯"
                case [.left, .down]: "╮"
                case [.right, .up]: "╰"
                case [.right, .down]: "╭"
                case [.up, .down], [.up], [.down]: "│"
                case [.left, .right, .up]: "┴"
                case [.left, .right, .down]: "┬"
                case [.up, .down, .right]: "├"
                case [.up, .down, .left]: "┤"
                case [.left, .right, .up, .down]: "┼"
                default: "─"
                }
            }
        )

        static let ascii = Glyphs(
            axis: "|", tick: "+", corner: "+", rule: "-", band: ".", deal: "#", today: "o", average: "-", lineSample: "*",
            dashed: { $0 % 2 == 0 },
            line: { _ in "*" }
        )
    }

    /// The y-axis: the prices' own range (widened only where needed for three
    /// labels), with 3–5 round labels inside it a 1-2-5 step apart, each on
    /// its nearest row, where a price equal to it is drawn too.
    struct YAxis {
        let low: Int64, high: Int64
        let labels: [Int64]        // top first
        let labelRows: [Int]
        let rows: Int

        init(values: [Int64], maxRows: Int) {
            var low = values.min() ?? 0, high = values.max() ?? 0
            // A flat series still gets a readable scale: steps of at least ~1% of the price.
            let floorStep = max(1, Int64(high.magnitude / 100))
            var step: Int64 = 1
            search: for power in 0 ... 17 {
                var unit: Int64 = 1
                for _ in 0 ..< power { unit *= 10 }
                for multiple: Int64 in [1, 2, 5] where multiple * unit >= floorStep {
                    step = multiple * unit
                    if Self.labelCount(low, high, step) <= 5 { break search }
                }
            }
            // At least three labels: widen to the next multiple below (not under zero
            // for a non-negative scale), then above, in turn.
            var below = true
            while Self.labelCount(low, high, step) < 3 {
                let next = below ? Self.floor(low - 1, step) : Self.ceil(high + 1, step)
                if below, next < 0, low >= 0 { below = false; continue }
                if below { low = next } else { high = next }
                below.toggle()
            }
            let rows = maxRows
            self.low = low
            self.high = high
            self.rows = rows
            // Top first; on a short plot two labels may share a row: the upper one stays.
            var labels: [Int64] = [], labelRows: [Int] = []
            for label in Self.labels(low, high, step).reversed() {
                let row = Self.row(label, low: low, high: high, rows: rows)
                if labelRows.last != row { labels.append(label); labelRows.append(row) }
            }
            self.labels = labels
            self.labelRows = labelRows
        }

        /// The multiples of `step` from `low` to `high`, ascending.
        static func labels(_ low: Int64, _ high: Int64, _ step: Int64) -> [Int64] {
            Array(stride(from: ceil(low, step), through: high, by: Int(step)))
        }

        /// How many multiples of `step` lie from `low` to `high`.
        static func labelCount(_ low: Int64, _ high: Int64, _ step: Int64) -> Int64 {
            let first = ceil(low, step), last = floor(high, step)
            return first > last ? 0 : (last - first) / step + 1
        }

        /// The row of `price`, 0 at the top, clamped to the plot.
        func row(_ price: Int64) -> Int { Self.row(price, low: low, high: high, rows: rows) }

        static func row(_ price: Int64, low: Int64, high: Int64, rows: Int) -> Int {
            guard high > low else { return rows / 2 }
            let fraction = (Double(high) - Double(price)) / (Double(high) - Double(low))
            return min(max(Int((fraction * Double(rows - 1)).rounded()), 0), rows - 1)
        }

        static func floor(_ value: Int64, _ step: Int64) -> Int64 {
            let quotient = value / step
            return (value % step != 0 && value < 0 ? quotient - 1 : quotient) * step
        }

        static func ceil(_ value: Int64, _ step: Int64) -> Int64 {
            let quotient = value / step
            return (value % step != 0 && value > 0 ? quotient + 1 : quotient) * step
        }
    }

    /// The plot's cells: a background layer per cell, the line's joins, today's mark.
    struct Canvas {
        enum Layer { case band, deal, average }

        struct Joins: OptionSet, Sendable {
            let rawValue: UInt8
            static let left = Joins(rawValue: 1), right = Joins(rawValue: 2), up = Joins(rawValue: 4), down = Joins(rawValue: 8)
        }

        let rows: Int, columns: Int
        private var background: [Layer?]
        private var averageRow: Int?
        private var joins: [Joins?]
        private var todayCell: Int?

        init(rows: Int, columns: Int) {
            self.rows = rows
            self.columns = columns
            background = Array(repeating: nil, count: rows * columns)
            joins = Array(repeating: nil, count: rows * columns)
        }

        mutating func fill(row: Int, with layer: Layer) {
            if layer == .average { averageRow = row; return }
            for column in 0 ..< columns { background[row * columns + column] = layer }
        }

        /// A step line through `cells` (column, row), left to right: level
        /// until the next point's column, then up or down to its row.
        mutating func connect(_ cells: [(column: Int, row: Int)]) {
            guard let first = cells.first else { return }
            join(first.row, first.column, [])
            for (from, to) in zip(cells, cells.dropFirst()) {
                if to.column > from.column {
                    join(from.row, from.column, .right)
                    for column in from.column + 1 ..< to.column { join(from.row, column, [.left, .right]) }
                    join(from.row, to.column, .left)
                }
                guard to.row != from.row else { continue }
                let step = to.row < from.row ? -1 : 1
                join(from.row, to.column, step < 0 ? .up : .down)
                for row in stride(from: from.row + step, to: to.row, by: step) { join(row, to.column, [.up, .down]) }
                join(to.row, to.column, step < 0 ? .down : .up)
            }
            // The last point turns to the right, as the line would go on.
            if let last = cells.last, let joined = joins[last.row * columns + last.column], !joined.isDisjoint(with: [.up, .down]) {
                join(last.row, last.column, .right)
            }
        }

        mutating func mark(row: Int, column: Int) {
            todayCell = row * columns + column
        }

        private mutating func join(_ row: Int, _ column: Int, _ directions: Joins) {
            let index = row * columns + column
            joins[index] = (joins[index] ?? []).union(directions)
        }

        /// One row in `glyphs`: today over the line over the average over the background.
        func text(row: Int, _ glyphs: Glyphs) -> String {
            String((0 ..< columns).map { column -> Character in
                let index = row * columns + column
                if index == todayCell { return glyphs.today }
                if let joined = joins[index] { return glyphs.line(joined) }
                if row == averageRow, glyphs.dashed(column) { return glyphs.average }
                switch background[index] {
                case .band: return glyphs.band
                case .deal: return (row + column) % 3 == 0 ? glyphs.deal : " "  // a sparse hatch: the line stays readable over it
                default: return " "
                }
            })
        }
    }
}
