import FareLensServiceKit

extension BookingWindowCurve {
    /// Search's bundled booking-window curve, loaded once per process (it never changes while the process runs).
    static func bundled() throws(BundledDataError) -> BookingWindowCurve { try loaded.get() }

    private static let loaded = Result { () throws(BundledDataError) -> BookingWindowCurve in
        try BookingWindowCurve(csv: BundledData.text("booking-window"))
    }
}
