import FareLensMessages
import FareLensTesting
import Testing

@Suite("Attribution sub-id")
struct AttributionSubIDTests {
    static let placements: [BookingPlacement] = [.dealcard, .detail, .sheet, .widget, .alert]
    static let tiers: [Tier] = [.trial, .pro, .free]
    /// Scoring's shape (`d-` + 16 hex digits) and ids with dashes anywhere.
    static let dealIDs = ["d-9f2c4a01b7e3d856", "d-0000000000000000", "d42", "d_1", "-", "d-", "-d", "a--b", "x-y-z", "sfo_lax-2", ""]
    static let watchlistIDs = ["", "w-00c0ffee1234abcd", "w_7", "none-of-them"]
    static let variants = ["", "variantA", "price-first", "B_2"]

    static func make(_ deal: String, _ watchlist: String = "", _ placement: BookingPlacement = .detail, _ variant: String = "", _ tier: Tier = .pro) throws -> AttributionSubID {
        try AttributionSubID(dealID: deal, watchlistID: watchlist, placement: placement, abVariant: variant, tier: tier)
    }

    @Test("written as ios-fl-{deal}-{watchlist}-{placement}-{variant}-{tier}, '-' inside a field as '__', empty as none")
    func text() throws {
        #expect(try Self.make("d-9f2c4a01b7e3d856", "w-00c0ffee1234abcd", .dealcard, "variantA", .pro).text
            == "ios-fl-d__9f2c4a01b7e3d856-w__00c0ffee1234abcd-dealcard-variantA-pro")
        #expect(try Self.make("", "", .alert, "", .trial).text == "ios-fl-none-none-alert-none-trial")
        // Ids without a dash are written exactly as before the encoding.
        #expect(try Self.make("abc123", "sfo_lax", .sheet, "variantB", .free).text == "ios-fl-abc123-sfo_lax-sheet-variantB-free")
        #expect(try Self.make("a--b", "", .widget, "price-first", .free).text == "ios-fl-a____b-none-widget-price__first-free")
        // "none" is the empty field: written none, read back empty.
        let none = try Self.make("none", "none", .detail, "none", .pro)
        #expect(none.dealID.isEmpty && none.watchlistID.isEmpty && none.abVariant.isEmpty && none.text == "ios-fl-none-none-detail-none-pro")
    }

    @Test("build then parse gives back every field: deal ids with dashes, watchlist none or some, every placement and tier")
    func roundTrip() throws {
        var count = 0
        for deal in Self.dealIDs {
            for watchlist in Self.watchlistIDs {
                for variant in Self.variants {
                    for placement in Self.placements {
                        for tier in Self.tiers {
                            let built = try Self.make(deal, watchlist, placement, variant, tier)
                            let text = built.text
                            #expect(text.split(separator: "-", omittingEmptySubsequences: false).count == 7, "\(text)")
                            #expect(text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }, "\(text)")
                            let parsed = try #require(AttributionSubID(parsing: text), "\(text)")
                            #expect(parsed == built, "\(text)")
                            #expect(parsed.dealID == deal && parsed.watchlistID == watchlist && parsed.abVariant == variant, "\(text)")
                            #expect(parsed.placement == placement && parsed.tier == tier, "\(text)")
                            count += 1
                        }
                    }
                }
            }
        }
        #expect(count == Self.dealIDs.count * Self.watchlistIDs.count * Self.variants.count * 15)
    }

    @Test("random ids: every one the builder accepts reads back; a parse always writes the same text back (one sub-id per booking)")
    func randomised() throws {
        var random = SplitMix64(seed: 0x5EED_5B1D)
        let alphabet: [Character] = ["d", "Z", "0", "9", "_", "-", "-"]
        func word(_ maxLength: Int) -> String {
            String((0 ..< Int.random(in: 1 ... maxLength, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        var accepted = 0
        for _ in 0 ..< 3000 {
            let (deal, watchlist, variant) = (word(40), word(8), word(6))
            let placement = Self.placements.randomElement(using: &random)!
            let tier = Self.tiers.randomElement(using: &random)!
            let made = Result { () throws(AttributionSubID.Invalid) in
                try AttributionSubID(dealID: deal, watchlistID: watchlist, placement: placement, abVariant: variant, tier: tier)
            }
            switch made {
            case .success(let built):
                let parsed = try #require(AttributionSubID(parsing: built.text), "\(built.text)")
                #expect(parsed.dealID == deal && parsed.watchlistID == watchlist && parsed.abVariant == variant)
                #expect(parsed.placement == placement && parsed.tier == tier)
                accepted += 1
            case .failure(let error):
                #expect(error.code == .ambiguous || error.code == .length, "\(error)")
                #expect(["deal_id", "watchlist_id", "ab_variant"].contains(error.field))
            }
            // Any text that parses is canonical.
            let text = "ios-fl-\(word(12).replacing("-", with: "_"))-none-\(placement == .sheet ? "sheet" : "detail")-\(word(3).replacing("-", with: "_"))-pro"
            if let parsed = AttributionSubID(parsing: text) { #expect(parsed.text == text) }
        }
        #expect(accepted > 300)
    }

    @Test("fields it cannot carry are refused with a code and the request field's name")
    func invalid() {
        let cases: [(AttributionSubID.Invalid.Code, String, () throws(AttributionSubID.Invalid) -> AttributionSubID)] = [
            (.missing, "placement", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "d-1", watchlistID: "", placement: .unspecified, abVariant: "", tier: .pro) }),
            (.missing, "placement", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "d-1", watchlistID: "", placement: .UNRECOGNIZED(9), abVariant: "", tier: .pro) }),
            (.missing, "tier", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "d-1", watchlistID: "", placement: .detail, abVariant: "", tier: .unspecified) }),
            (.character, "deal_id", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "d 1", watchlistID: "", placement: .detail, abVariant: "", tier: .pro) }),
            (.character, "deal_id", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "d.1", watchlistID: "", placement: .detail, abVariant: "", tier: .pro) }),
            (.character, "watchlist_id", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "", watchlistID: "w-é", placement: .detail, abVariant: "", tier: .pro) }),
            (.character, "ab_variant", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "", watchlistID: "", placement: .detail, abVariant: "a/b", tier: .pro) }),
            (.ambiguous, "deal_id", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "d__1", watchlistID: "", placement: .detail, abVariant: "", tier: .pro) }),
            (.ambiguous, "deal_id", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "d_-1", watchlistID: "", placement: .detail, abVariant: "", tier: .pro) }),
            (.ambiguous, "watchlist_id", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "", watchlistID: "w-_1", placement: .detail, abVariant: "", tier: .pro) }),
            (.length, "deal_id", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: String(repeating: "d-", count: 22), watchlistID: "", placement: .detail, abVariant: "", tier: .pro) }),
            (.length, "ab_variant", { () throws(AttributionSubID.Invalid) in try AttributionSubID(dealID: "", watchlistID: "", placement: .detail, abVariant: String(repeating: "v", count: 65), tier: .pro) }),
        ]
        for (code, field, make) in cases {
            do {
                let built = try make()
                Issue.record("accepted \(built.text); expected \(code) on \(field)")
            } catch {
                #expect(error.code == code && error.field == field, "\(error)")
            }
        }
        // The limit is on the field as written: 64 characters pass.
        #expect((try? AttributionSubID(dealID: String(repeating: "d-", count: 21) + "d", watchlistID: "", placement: .detail, abVariant: String(repeating: "v", count: 64), tier: .pro)) != nil)
    }

    @Test("text it never writes does not parse")
    func unparsable() {
        for bad in [
            "", "ios-fl", "ios-fl-d1-none-detail-a", "ios-fl-d1-none-detail-a-pro-x", "web-fl-d1-none-detail-a-pro", "IOS-fl-d1-none-detail-a-pro",
            "ios-fl-d-1-none-detail-a-pro", "ios-fl--none-detail-a-pro", "ios-fl-d1--detail-a-pro", "ios-fl-d1-none-detail--pro",
            "ios-fl-d1-none-banner-a-pro", "ios-fl-d1-none-DETAIL-a-pro", "ios-fl-d1-none-detail-a-gold", "ios-fl-d1-none-detail-a-Pro",
            "ios-fl-d___1-none-detail-a-pro", "ios-fl-d_____-none-detail-a-pro", "ios-fl-___-none-detail-a-pro",
            "ios-fl-d 1-none-detail-a-pro", "ios-fl-d.1-none-detail-a-pro", "ios-fl-dé-none-detail-a-pro",
            "ios-fl-" + String(repeating: "d", count: 65) + "-none-detail-a-pro",
        ] {
            #expect(AttributionSubID(parsing: bad) == nil, "\(bad)")
        }
        #expect(AttributionSubID(parsing: "ios-fl-" + String(repeating: "d", count: 64) + "-none-detail-a-pro") != nil)
    }
}
