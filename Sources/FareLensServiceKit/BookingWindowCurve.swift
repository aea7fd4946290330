/// The real price premium by days before departure (median premium over the
/// route's lowest, Piratefly `booking-window.csv`), normalised so that a
/// departure chosen uniformly 0–90 days ahead has a premium factor of 1 in
/// the median: the route median stays the route median.
///
/// Search's simulated market prices fares with it; scoring's buy-or-wait
/// forecast reads how fares usually move between two lead times from it.
/// Each service bundles its own copy of the file.
public struct BookingWindowCurve: Sendable {
    /// (from day, to day, median premium %).
    let windows: [(from: Int, to: Int, premium: Double)]
    let normaliser: Double

    public init(windows: [(from: Int, to: Int, premium: Double)]) {
        let sorted = windows.sorted { $0.from < $1.from }
        self.windows = sorted
        let factors = (0 ... 90).map { day in 1 + Self.premium(day, sorted) / 100 }.sorted()
        normaliser = factors.isEmpty ? 1 : factors[factors.count / 2]
    }

    /// From the text of `booking-window.csv` (columns `from_days`, `to_days`,
    /// `median_premium_pct`).
    public init(csv text: String) throws(BundledDataError) {
        let table = try CSVTable(text: text, name: "booking-window")
        let (from, to, premium) = try (table.column("from_days"), table.column("to_days"), table.column("median_premium_pct"))
        var windows: [(Int, Int, Double)] = []
        for row in table.rows {
            guard let a = Int(row[from]), let b = Int(row[to]), let p = Double(row[premium]) else {
                throw BundledDataError(file: "booking-window.csv", reason: "non-numeric window in row \(row)")
            }
            windows.append((a, b, p))
        }
        self.init(windows: windows)
    }

    /// The price factor for a departure `days` ahead (beyond the data's last
    /// window, its premium holds).
    public func factor(daysAhead days: Int) -> Double {
        (1 + Self.premium(max(0, days), windows) / 100) / normaliser
    }

    /// How a fare `days` ahead usually compares with the same fare `span`
    /// days earlier (`days + span` ahead): 0.12 for 12% higher. The
    /// normalisation cancels out.
    public func change(daysAhead days: Int, over span: Int) -> Double {
        factor(daysAhead: days) / factor(daysAhead: days + span) - 1
    }

    static func premium(_ day: Int, _ windows: [(from: Int, to: Int, premium: Double)]) -> Double {
        windows.first { $0.from <= day && day <= $0.to }?.premium ?? windows.last?.premium ?? 0
    }
}
