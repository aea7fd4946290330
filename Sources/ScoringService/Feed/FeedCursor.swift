import Foundation

/// The deal feed's page cursor: an offset into the ranking, written
/// `f1.<offset>` in base64url so that clients treat it as opaque. At most
/// 1,000 deals deep (the app shows far fewer).
///
/// The offset is into the ranking as it is when each page is asked for: a
/// deal that moves up between two pages can be seen twice or missed, never
/// invented.
enum FeedCursor {
    static let maximumOffset = 1_000

    static func cursor(offset: Int) -> String {
        Data("f1.\(offset)".utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The offset a cursor names; 0 for the empty cursor (the first page).
    /// - Throws: `invalid-cursor` naming `cursor` for one the feed did not give.
    static func offset(_ cursor: String) throws(ScoringError) -> Int {
        guard !cursor.isEmpty else { return 0 }
        let standard = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard cursor.count <= 32, let data = Data(base64Encoded: standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)),
              let text = String(data: data, encoding: .utf8), text.hasPrefix("f1."), let offset = Int(text.dropFirst(3)),
              (0...maximumOffset).contains(offset)
        else { throw .invalidCursor(cursor) }
        return offset
    }
}
