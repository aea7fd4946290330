public import AsyncHTTPClient
public import FareLensMessages
import Foundation

/// Fares from the Travelpayouts Data API (`GET /aviasales/v3/prices_for_dates`,
/// token in the `X-Access-Token` header).
///
/// These are **cached prices**: what Aviasales users found in recent days,
/// not live availability; a fare may be gone when the traveller clicks.
///
/// - Cabin: the API has no cabin parameter and answers economy only, so any
///   other cabin gets no offers (no call is made).
/// - Travellers: prices are per person. The total is the price × (adults +
///   children) plus 10% of it per infant, the infants' share rounded to the
///   nearest minor unit (halves up).
/// - Connections: the API tells how many transfers a direction has, not
///   where. Such a direction is one segment from origin to destination with
///   `stops` = transfers; no connecting airport is invented.
/// - Booking links go to aviasales.com with the configured affiliate marker.
/// - The token never appears in any error.
public struct TravelpayoutsProvider: FareProvider {
    /// "travelpayouts", in offers, quota and errors.
    public static let providerName = "travelpayouts"
    /// Where the API's relative `link` paths point.
    public static let bookingSite = "https://www.aviasales.com"

    public var name: String { Self.providerName }
    public var isLive: Bool { true }

    let settings: TravelpayoutsSettings
    let timeZone: @Sendable (String) -> String?
    let http: ProviderHTTP

    /// Creates the provider.
    ///
    /// - Parameters:
    ///   - settings: base URL, timeout, token and affiliate marker.
    ///   - timeZone: IATA airport code → IANA zone, nil when unknown (the
    ///     zone and the computed arrival time are then left empty).
    ///   - client: the HTTP client; ``LiveProviderClient/shared`` by default.
    public init(
        settings: TravelpayoutsSettings,
        timeZone: @escaping @Sendable (String) -> String?,
        client: HTTPClient = LiveProviderClient.shared
    ) {
        self.settings = settings
        self.timeZone = timeZone
        self.http = ProviderHTTP(
            provider: Self.providerName, client: client, timeout: settings.endpoint.timeout, secrets: [settings.token]
        )
    }

    public func offers(for query: FareQuery, deadline: ContinuousClock.Instant?) async throws(ProviderError) -> [FlightOffer] {
        try settings.validate()
        guard query.cabin == .economy || query.cabin == .unspecified else { return [] }
        let response = try await http.exchange(searchRequest(query), deadline: deadline)
        try http.requireSuccess(response)
        let answer = try http.decode(TravelpayoutsResponse.self, from: response.body)
        guard answer.success else { throw .malformedResponse(name, "the API answered success=false") }
        let currency = (answer.currency ?? query.currency).uppercased()
        var offers: [FlightOffer] = []
        for (index, ticket) in (answer.data ?? []).enumerated() {
            do throws(TravelpayoutsMappingError) {
                if let offer = try ticket.flightOffer(for: query, currency: currency, marker: settings.marker, timeZone: timeZone) {
                    offers.append(offer)
                }
            } catch {
                throw .malformedResponse(name, "data[\(index)].\(error.field)")
            }
        }
        return offers
    }

    /// The request, with its query parameters as the API documents them.
    func searchRequest(_ query: FareQuery) -> HTTPClientRequest {
        var items: [(String, String)] = [
            ("origin", query.origin),
            ("destination", query.destination),
            ("departure_at", query.departureDate.description),
        ]
        if let returnDate = query.returnDate { items.append(("return_at", returnDate.description)) }
        items += [
            ("one_way", query.returnDate == nil ? "true" : "false"),
            ("direct", query.nonstopOnly ? "true" : "false"),
            ("currency", query.currency.lowercased()),
            ("limit", String(settings.limit)),
            ("sorting", "price"),
        ]
        return ProviderHTTP.request(
            baseURL: settings.endpoint.baseURL, path: "/aviasales/v3/prices_for_dates", query: items,
            headers: [("X-Access-Token", settings.token)]
        )
    }

    /// A booking link: ``bookingSite`` + `path` (the API's relative `link`),
    /// plus `marker=<marker>` when a marker is given, written
    /// `marker=<marker>.<subID>` when a sub-id is given too (Travelpayouts'
    /// SubID form). The marker value is percent-escaped; without a marker the
    /// sub-id is dropped, since there is no affiliate account to attribute to.
    public static func link(_ path: String, marker: String?, subID: String?) -> String {
        let url = bookingSite + (path.hasPrefix("/") ? path : "/" + path)
        guard let marker, !marker.isEmpty else { return url }
        let value = subID.map { $0.isEmpty ? marker : "\(marker).\($0)" } ?? marker
        return url + (url.contains("?") ? "&" : "?") + "marker=" + ProviderHTTP.escape(value)
    }

    /// `bookingLink` (made by ``link(_:marker:subID:)`` with a marker) with
    /// `subID` attributed: `marker=<marker>` becomes `marker=<marker>.<subID>`.
    /// A link without a marker is returned unchanged.
    public static func addingSubID(_ subID: String, to bookingLink: String) -> String {
        guard !subID.isEmpty, let range = bookingLink.range(of: "marker=", options: .backwards),
              bookingLink[..<range.lowerBound].last.map({ $0 == "?" || $0 == "&" }) == true else { return bookingLink }
        let valueEnd = bookingLink[range.upperBound...].firstIndex(of: "&") ?? bookingLink.endIndex
        return String(bookingLink[..<valueEnd]) + "." + ProviderHTTP.escape(subID) + String(bookingLink[valueEnd...])
    }
}
