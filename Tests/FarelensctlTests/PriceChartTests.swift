import FareLensMessages
import Testing
@testable import farelensctl

/// 2026-05-01 as days since the epoch: the first day of the sample series.
private let may1 = CalendarDate(year: 2026, month: 5, day: 1)!.daysSinceEpoch

/// A deterministic wobble (no randomness in tests): 0 ..< modulus.
private func wobble(_ index: Int, _ modulus: Int) -> Int64 { Int64((index * 7_919 + index * index * 31) % modulus) }

/// One named chart to render.
struct Sample: Sendable, CustomTestStringConvertible {
    let name: String
    let chart: PriceChart
    var testDescription: String { name }

    /// `prices` on consecutive days from 2026-05-01 (nil: no observation that day), with the usual figures around them.
    static func days(_ name: String, _ prices: [Int64?], currency: String = "EUR", figures: Bool = true, today: Bool = true) -> Sample {
        let series = prices.enumerated().compactMap { day, price in price.map { PriceChart.Point(day: may1 + day, price: $0) } }
        let sorted = series.map(\.price).sorted()
        let low = sorted.isEmpty ? nil : sorted[sorted.count / 4], high = sorted.isEmpty ? nil : sorted[sorted.count * 3 / 4]
        let average = sorted.isEmpty ? nil : sorted.reduce(0, +) / Int64(sorted.count)
        return Sample(name: name, chart: PriceChart(
            series: series, average90: figures ? average : nil, typicalLow: figures ? low : nil, typicalHigh: figures ? high : nil,
            dealZoneBelow: figures ? low : nil, today: today ? series.last : nil, currency: currency
        ))
    }
}

/// Series of every shape the service can send.
let samples: [Sample] = [
    .days("flat", Array(repeating: 80_000, count: 30)),
    .days("volatile", (0 ..< 30).map { 40_000 + wobble($0, 90_000) }),
    .days("with gaps", (0 ..< 30).map { $0 % 3 == 1 || (10 ..< 17).contains($0) ? nil : 61_000 + wobble($0, 12_000) }),
    .days("one point", [72_350]),
    .days("one point, no figures", [72_350], figures: false),
    .days("30 points, no today", (0 ..< 30).map { 80_000 - Int64($0) * 900 + wobble($0, 4_000) }, today: false),
    .days("large JPY", (0 ..< 30).map { 1_250_000 + wobble($0, 400_000) }, currency: "JPY"),
    .days("small EUR", (0 ..< 30).map { 999 + wobble($0, 500) }),
    .days("KWD, three decimals", (0 ..< 30).map { 120_500 + wobble($0, 30_000) }, currency: "KWD"),
    .days("two points far apart", [50_000] + Array(repeating: nil, count: 28) + [45_000]),
]

/// A plausible 30-day EUR series: a drift down with noise, a gap, and today in the deal zone.
let plausible = Sample.days("plausible", (0 ..< 30).map { day -> Int64? in
    if [6, 7, 19].contains(day) { return nil }
    return 84_000 - Int64(day) * 250 + wobble(day, 6_000) - (day == 29 ? 6_500 : 0)
})

/// The rows of the plot: everything above the x-axis, the dates and the legend.
private func plotRows(_ text: String) -> [Substring] { Array(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(3)) }

/// The y-axis labels: the text before the tick on the rows that have one.
private func yLabels(_ text: String, tick: Character) -> [String] {
    plotRows(text).compactMap { row in
        guard let index = row.firstIndex(of: tick) else { return nil }
        return row[..<index].trimmingCharacters(in: .whitespaces)
    }
}

@Suite("Price chart")
struct PriceChartTests {
    @Test("no line is wider than 80 columns, in Unicode or ASCII, for any series", arguments: samples + [plausible], [true, false])
    func fitsWidth(sample: Sample, unicode: Bool) {
        for line in sample.chart.render(width: 80, unicode: unicode).split(separator: "\n") {
            #expect(line.count <= 80, "\(line)")
        }
    }

    @Test("a narrower terminal gets narrower lines", arguments: [40, 56, 100])
    func fitsOtherWidths(width: Int) {
        for line in plausible.chart.render(width: width, unicode: true).split(separator: "\n") {
            #expect(line.count <= width, "\(line)")
        }
    }

    @Test("the chart fills the width it is given, so it stays readable", arguments: [true, false])
    func usesWidth(unicode: Bool) {
        let rows = plotRows(plausible.chart.render(width: 80, unicode: unicode))
        #expect(rows.allSatisfy { $0.count == 80 })
    }

    @Test("ASCII mode prints printable ASCII and newlines only", arguments: samples + [plausible])
    func asciiOnly(sample: Sample) {
        let text = sample.chart.render(unicode: false)
        let strays = text.unicodeScalars.filter { $0 != "\n" && !(0x20 ... 0x7E).contains($0.value) }
        #expect(strays.isEmpty, "non-ASCII: \(String(String.UnicodeScalarView(strays)))")
    }

    @Test("Unicode mode draws with single-width box and block characters only", arguments: samples + [plausible])
    func unicodeGlyphs(sample: Sample) {
        let plot = plotRows(sample.chart.render(unicode: true)).joined()
        let allowed = { (scalar: Unicode.Scalar) in (0x20 ... 0x7E).contains(scalar.value) || (0x2500 ... 0x259F).contains(scalar.value) || "€£¥".unicodeScalars.contains(scalar) }
        #expect(plot.unicodeScalars.allSatisfy(allowed))
    }

    @Test("today's price is marked exactly once when it is set", arguments: samples.filter { $0.chart.today != nil } + [plausible], [true, false])
    func todayOnce(sample: Sample, unicode: Bool) {
        let marker: Character = unicode ? "█" : "o"
        #expect(plotRows(sample.chart.render(unicode: unicode)).joined().filter { $0 == marker }.count == 1)
    }

    @Test("without today's price there is no today marker and no legend entry for it", arguments: [true, false])
    func noToday(unicode: Bool) {
        var chart = plausible.chart
        chart.today = nil
        let text = chart.render(unicode: unicode)
        #expect(!plotRows(text).joined().contains(unicode ? "█" : "o"))
        #expect(!text.contains("today"))
    }

    @Test("EUR labels have the euro sign and two decimals, between three and five of them")
    func euroLabels() throws {
        let labels = yLabels(plausible.chart.render(unicode: true), tick: "┤")
        #expect((3 ... 5).contains(labels.count), "\(labels)")
        for label in labels { #expect(label.wholeMatch(of: /€\d{1,3}(,\d{3})*\.\d{2}/) != nil, "\(label)") }
    }

    @Test("ASCII labels write the code after the amount instead of a non-ASCII symbol; dollars keep their sign")
    func asciiLabels() throws {
        let euros = yLabels(plausible.chart.render(unicode: false), tick: "+")
        #expect((3 ... 5).contains(euros.count), "\(euros)")
        for label in euros { #expect(label.wholeMatch(of: /\d{1,3}(,\d{3})*\.\d{2} EUR/) != nil, "\(label)") }
        #expect(PriceChart.label(-500, currency: "EUR", unicode: false) == "-5.00 EUR")
        #expect(PriceChart.label(6_500_000, currency: "JPY", unicode: false) == "6,500,000 JPY")
        #expect(PriceChart.label(81_200, currency: "USD", unicode: false) == "$812.00")
    }

    @Test("JPY labels have the yen sign and no decimals; KWD labels three decimals and the code")
    func otherCurrencyLabels() throws {
        let yen = yLabels(samples.first { $0.name == "large JPY" }!.chart.render(unicode: true), tick: "┤")
        #expect((3 ... 5).contains(yen.count), "\(yen)")
        for label in yen { #expect(label.wholeMatch(of: /¥\d{1,3}(,\d{3})*/) != nil, "\(label)") }
        let dinar = yLabels(samples.first { $0.name == "KWD, three decimals" }!.chart.render(unicode: false), tick: "+")
        for label in dinar { #expect(label.wholeMatch(of: /\d{1,3}(,\d{3})*\.\d{3} KWD/) != nil, "\(label)") }
    }

    @Test("the scale spans the prices; its 3–5 labels are round, evenly spaced, top first, each on the row its price is drawn on", arguments: samples + [plausible])
    func labelsCover(sample: Sample) throws {
        let prices = sample.chart.series.map(\.price)
        let axis = PriceChart.YAxis(values: prices, maxRows: 16)
        #expect((3 ... 5).contains(axis.labels.count) && axis.rows == 16, "\(axis.labels)")
        let steps = Set(zip(axis.labels, axis.labels.dropFirst()).map { $0 - $1 })
        #expect(steps.count == 1 && steps.first! > 0, "\(axis.labels)")
        let step = try #require(steps.first)
        #expect(axis.labels.allSatisfy { $0 % step == 0 && (axis.low ... axis.high).contains($0) }, "\(axis.labels)")
        #expect(axis.low <= prices.min()! && axis.high >= prices.max()!)
        #expect(axis.labelRows == axis.labels.map(axis.row) && axis.labelRows == axis.labelRows.sorted() && Set(axis.labelRows).count == axis.labelRows.count)
    }

    @Test("the scale is not wider than the prices when they span enough for three labels")
    func tightScale() {
        let axis = PriceChart.YAxis(values: [71_900, 91_200, 84_600], maxRows: 16)
        #expect(axis.low == 71_900 && axis.high == 91_200)
        #expect(axis.labels == [90_000, 85_000, 80_000, 75_000])
    }

    @Test("a flat series gets three labels around its price instead of dividing by zero")
    func flat() {
        let text = samples[0].chart.render(unicode: true)
        #expect(yLabels(text, tick: "┤") == ["€810.00", "€800.00", "€790.00"])
    }

    @Test("an empty series gives the one-line message", arguments: [true, false])
    func empty(unicode: Bool) {
        let chart = PriceChart(series: [], average90: 80_000, typicalLow: 70_000, typicalHigh: 90_000, dealZoneBelow: 70_000, today: nil, currency: "EUR")
        #expect(chart.render(unicode: unicode) == "no history for this route yet")
    }

    @Test("the x-axis shows the first and last days of the series as YYYY-MM-DD")
    func dates() {
        let lines = plausible.chart.render(unicode: true).split(separator: "\n")
        let dates = lines[lines.count - 2]
        #expect(dates.trimmingCharacters(in: .whitespaces).hasPrefix("2026-05-01"))
        #expect(dates.hasSuffix("2026-05-30"))
    }

    @Test("the legend names the line, the average, the typical range, the deal zone and today, in each mode", arguments: [true, false])
    func legend(unicode: Bool) {
        let legend = plausible.chart.render(unicode: unicode).split(separator: "\n").last ?? ""
        let expected = unicode
            ? ["─ daily low", "┄ 90-day average", "░ typical range", "╱ deal zone", "█ today"]
            : ["* daily low", "- 90-day average", ". typical range", "# deal zone", "o today"]
        for item in expected { #expect(legend.contains(item), "\(legend)") }
    }

    @Test("the legend names only what is drawn")
    func legendOnlyDrawn() {
        let legend = samples.first { $0.name == "one point, no figures" }!.chart.render(unicode: true).split(separator: "\n").last ?? ""
        #expect(legend == "─ daily low  █ today")
    }

    @Test("the daily line is connected: every column from the first day to the last has a point of it", arguments: samples + [plausible])
    func connected(sample: Sample) {
        // The plot is what follows the y-axis ("|", or "+" at a label).
        let plot = plotRows(sample.chart.render(unicode: false)).map { row in Array(row[row.index(after: row.firstIndex { $0 == "|" || $0 == "+" }!)...]) }
        let width = plot[0].count
        let columns = (0 ..< width).filter { column in plot.contains { ["*", "o"].contains($0[column]) } }
        #expect(columns.count == (sample.chart.series.count == 1 ? 1 : width), "\(sample.name)")
    }

    @Test("the 90-day average is dashed, the typical range shaded and the deal zone filled below it")
    func layers() {
        let plot = plotRows(plausible.chart.render(unicode: false)).map { row in row[row.index(after: row.firstIndex { $0 == "|" || $0 == "+" }!)...] }
        let averageRows = plot.filter { $0.contains("- - -") || $0.contains("-.-.-") || $0.contains("-#-#-") }
        #expect(averageRows.count == 1)
        let bandRows = plot.indices.filter { plot[$0].contains(".") }, dealRows = plot.indices.filter { plot[$0].contains("#") }
        #expect(!bandRows.isEmpty && !dealRows.isEmpty)
        #expect(dealRows.first == bandRows.last.map { $0 + 1 })
        #expect(dealRows.last == plot.count - 1 && dealRows.count == dealRows.last! - dealRows.first! + 1)
    }
}
