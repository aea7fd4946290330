import FareLensBus
import FareLensMessages
import Foundation
import Hummingbird
import JWTKit
import SwiftProtobuf

/// Price history, the score explanation, booking options and the click-out (docs/api.md).
extension GatewayAPI {
    /// `GET /v1/prices/history?origin&destination&cabin&month=YYYY-MM`.
    func priceHistory(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var history = PriceHistoryRequest()
        history.origin = String(request.uri.queryParameters.get("origin") ?? "")
        history.destination = String(request.uri.queryParameters.get("destination") ?? "")
        if let cabin = try Self.cabinQuery(request) { history.cabin = cabin }
        if let month = try Self.monthQuery(request) { (history.departureYear, history.departureMonth) = month }
        return try ProtoJSON.response(try await call(history), to: request, cacheable: true)
    }

    /// `POST /v1/score` with a fare: its DealScore with every component and reason ("why is this good?").
    func explainScore(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let fare = try await ProtoJSON.decode(ScoreFareRequest.self, from: request, context: context)
        return try ProtoJSON.response(try await call(fare), to: request)
    }

    /// `GET /v1/offers/{offer}/booking-options?deal_id&watchlist_id&placement&ab_variant`:
    /// every provider's price, each with a signed `click_url`.
    func bookingOptions(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let userID = try context.userID()
        var options = BookingOptionsRequest()
        options.offerID = context.parameters.get("offer") ?? ""
        options.dealID = String(request.uri.queryParameters.get("deal_id") ?? "")
        if let watchlist = request.uri.queryParameters.get("watchlist_id") { options.watchlistID = String(watchlist) }
        options.abVariant = String(request.uri.queryParameters.get("ab_variant") ?? "")
        if let placement = request.uri.queryParameters.get("placement") {
            guard let value = Self.enumField(BookingOptionsRequest.self, "placement", String(placement))?.placement, value != .unspecified else {
                throw Problem.badRequest("invalid-query", "placement: '\(placement)' is not DEALCARD, DETAIL, SHEET, WIDGET or ALERT", field: "placement")
            }
            options.placement = value
        }
        var entitlements = GetEntitlementsRequest()
        entitlements.userID = userID
        options.tier = try await call(entitlements).entitlements.tier
        let answer = try await call(options)
        let expires = now().addingTimeInterval(15 * 60)
        var rendered: [String] = []
        for option in answer.options {
            let claims = ClickClaims(
                sub: .init(value: userID), aud: .init(value: [ClickClaims.audience]), exp: .init(value: expires), offer: options.offerID,
                provider: option.provider, link: option.link, subID: option.subID, placement: options.placement.rawValue, dealID: options.dealID,
                fare: try Self.clickedFare(option, recheck: answer.hasRecheck ? answer.recheck : nil))
            let token = try await keys.collection.sign(claims, kid: JWKIdentifier(string: keys.signingKID))
            var text = try ProtoJSONWithDefaults.fareLens.text(of: option)
            text.removeLast()
            text += ",\"click_url\":\"/v1/book/\(Self.pathEscaped(options.offerID))?c=\(token)\"}"
            rendered.append(text)
        }
        return ProtoJSON.raw("{\"options\":[\(rendered.joined(separator: ","))]}", to: request)
    }

    /// `GET /v1/book/{offer}?c=…`: records the affiliate click for the user
    /// the option was shown to, then redirects (302) to the provider.
    func clickOut(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        guard let token = request.uri.queryParameters.get("c") else {
            throw Problem.badRequest("invalid-query", "c: the signed click from the booking options is required", field: "c")
        }
        let claims: ClickClaims
        do {
            claims = try await keys.collection.verify(String(token), as: ClickClaims.self)
        } catch {
            throw Problem.unauthorized("invalid-click", "this booking link is not one the server gave, or it was altered")
        }
        guard claims.aud.value.contains(ClickClaims.audience), claims.offer == context.parameters.get("offer") else {
            throw Problem.unauthorized("invalid-click", "this booking link is not one the server gave, or it was altered")
        }
        guard claims.exp.value > now() else {
            throw Problem(.gone, code: "click-expired", "this booking link is older than 15 minutes; open the booking options again")
        }
        var click = RecordClientEventRequest()
        click.clientEventID = "click-" + String(token.suffix(32))
        click.userID = claims.sub.value
        click.kind = .affiliateClicked
        click.occurredAtUnixMs = Int64(now().timeIntervalSince1970 * 1000)
        click.offerID = claims.offer
        click.provider = claims.provider
        click.subID = claims.subID
        click.dealID = claims.dealID
        click.placement = BookingPlacement(rawValue: claims.placement) ?? .unspecified
        if let fare = claims.fare.flatMap({ Data(base64Encoded: $0) }), let clicked = try? ClickedFare(serializedBytes: fare) {
            click.clickedFare = clicked
        }
        do {
            _ = try await call(click)
        } catch {
            // The traveller still gets to the fare: a lost click costs a report line, a failed redirect costs the booking.
            metrics.clickNotRecorded()
        }
        var headers = HTTPFields()
        headers[.location] = claims.link
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    /// The fare behind a booking option, for the click's claims (base64 of
    /// a `ClickedFare`); nil when search did not say how to find it again.
    static func clickedFare(_ option: BookingOption, recheck: SearchFlightsRequest?) throws -> String? {
        guard let recheck else { return nil }
        var fare = ClickedFare()
        fare.search = recheck
        fare.price = option.total
        fare.simulated = option.simulated
        return try (fare.serializedBytes() as Data).base64EncodedString()
    }

    /// `M` with only its enum field `field` set from the value's `.proto` name (`dealcard` or `DEALCARD`); nil if it names no value.
    static func enumField<M: SwiftProtobuf.Message>(_ type: M.Type, _ field: String, _ name: String) -> M? {
        let upper = name.uppercased()
        guard !upper.isEmpty, upper.count <= 40, upper.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else { return nil }
        return try? M(jsonString: "{\"\(field)\":\"\(upper)\"}")
    }

    static func pathEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?"))) ?? text
    }
}
