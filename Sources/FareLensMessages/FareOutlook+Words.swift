/// The words of a buy-or-wait outlook as people read them ("likely to
/// rise", "likely to fall", "no clear signal"; docs/forecast.md): one
/// spelling for `farelensctl routes forecast` and the demo's narration.
extension FareOutlook {
    /// The outlook in words; an unset or unknown value reads as no clear signal.
    public var words: String {
        switch self {
        case .likelyToRise: "likely to rise"
        case .likelyToFall: "likely to fall"
        case .noClearSignal, .unspecified, .UNRECOGNIZED: "no clear signal"
        }
    }
}
