import JWTKit

/// A signed click-out (docs/api.md, "Booking"): the booking options answer
/// each option's `click_url` as `/v1/book/{offer}?c=<this, as a JWT>`, so
/// the browser the app opens it in needs no bearer token, the redirect goes
/// only where the gateway itself said (no open redirect), and the click is
/// recorded for the user who was shown the option. Valid 15 minutes.
struct ClickClaims: JWTPayload {
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    /// The offer, the provider chosen and where it books.
    var offer: String
    var provider: String
    var link: String
    /// The attribution sub-id of an affiliate link; empty otherwise.
    var subID: String
    /// The placement's number (`BookingPlacement`).
    var placement: Int
    var dealID: String
    /// The fare clicked (a `ClickedFare`: the search that finds it again,
    /// the option's total, whether it is simulated), protobuf bytes in
    /// base64, for analytics' re-check; nil when search did not say how the
    /// offer was found, and in links signed before the field existed.
    var fare: String?

    /// The audience that tells a click-out from an access token signed by the same keys.
    static let audience = "farelens-click"

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    enum CodingKeys: String, CodingKey {
        case sub, aud, exp, offer, provider, link, placement, fare
        case subID = "sub_id"
        case dealID = "deal_id"
    }
}
