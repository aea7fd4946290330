import FareLensBus
import FareLensMessages
import Foundation
import GRDB

/// Who watches a route: the alerts service ranks an exceptional deal 1.2
/// times higher for a user with an active watchlist on its route (SPEC § 2's
/// queue score; docs/alerts.md).
extension WatchlistService {
    /// Users per page when the request asks for none.
    static let routeWatchersPageSize = 1_000
    /// Codes a request may name on each side: an airport and its metro are two.
    static let routeWatchersMaximumCodes = 4

    /// The users with an active watchlist whose origin is one of
    /// `request.origins`, destination one of `request.destinations` and
    /// cabin `request.cabin` (unspecified: economy); each once, in user-id
    /// order, paged after `request.pageToken`.
    ///
    /// - Throws: `invalid-field` naming `origins`, `destinations`, `cabin` or
    ///   `page_size`; `storage`.
    func routeWatchers(_ request: RouteWatchersRequest) throws(WatchlistError) -> RouteWatchersResponse {
        let origins = try Self.routeCodes(request.origins, field: "origins")
        let destinations = try Self.routeCodes(request.destinations, field: "destinations")
        let cabin = try WatchlistValidator.cabin(request.cabin)
        guard request.pageSize >= 0, request.pageSize <= 10 * Int32(Self.routeWatchersPageSize) else {
            throw .invalidField("page_size", "\(request.pageSize) is not in 0–\(10 * Self.routeWatchersPageSize)")
        }
        let size = request.pageSize == 0 ? Self.routeWatchersPageSize : Int(request.pageSize)
        let marks = { (count: Int) in Array(repeating: "?", count: count).joined(separator: ", ") }
        let arguments = StatementArguments(origins) + StatementArguments(destinations) + [cabin.rawValue, request.pageToken, size + 1]
        let sql = """
            SELECT DISTINCT userID FROM watchlist
            WHERE active = 1 AND origin IN (\(marks(origins.count))) AND destination IN (\(marks(destinations.count)))
              AND cabin = ? AND userID > ?
            ORDER BY userID LIMIT ?
            """
        let userIDs = try read { db in try String.fetchAll(db, sql: sql, arguments: arguments) }
        var response = RouteWatchersResponse()
        response.userIds = Array(userIDs.prefix(size))
        if userIDs.count > size, let last = response.userIds.last { response.nextPageToken = last }
        return response
    }

    /// `codes` upper-cased and distinct: one to ``routeWatchersMaximumCodes``
    /// three-letter codes. Unknown codes are not refused: they match nothing.
    static func routeCodes(_ codes: [String], field: String) throws(WatchlistError) -> [String] {
        guard !codes.isEmpty else { throw .invalidField(field, "names no airport") }
        guard codes.count <= routeWatchersMaximumCodes else {
            throw .invalidField(field, "names \(codes.count) codes; at most \(routeWatchersMaximumCodes)")
        }
        var distinct: [String] = []
        for raw in codes {
            let code = try WatchlistValidator.threeLetterCode(raw, field: field)
            if !distinct.contains(code) { distinct.append(code) }
        }
        return distinct
    }
}
