import FareLensMessages
import Testing
@testable import FareLensGateway

@Suite("The gateway's memo of printed bodies")
struct RenderedJSONMemoTests {
    /// An answer with `count` offers whose ids start with `prefix`.
    private func answer(_ prefix: String, offers count: Int = 3) -> SearchFlightsResponse {
        var response = SearchFlightsResponse()
        response.fromCache = true
        response.offers = (0..<count).map { index in
            var offer = FlightOffer()
            offer.offerID = "\(prefix)-\(index)"
            offer.carrier = "B6"
            offer.price.currency = "USD"
            offer.price.minorUnits = 17_842 + Int64(index)
            return offer
        }
        return response
    }

    private func printed(_ message: SearchFlightsResponse) throws -> [UInt8] {
        try ProtoJSONWithDefaults.fareLens.utf8(of: message)
    }

    @Test("a repeated answer is printed once and its body is the printer's, with the printed body's entity tag")
    func repeated() throws {
        let memo = RenderedJSONMemo()
        let first = try memo.rendered(answer("of"))
        let again = try memo.rendered(answer("of"))
        #expect(first.json == (try printed(answer("of"))))
        #expect(again.json == first.json && again.tag == first.tag && memo.count == 1)
        #expect(first.tag == RenderedJSONMemo.entityTag(of: first.json))
    }

    @Test("each answer gets its own body, in any order: the key is the whole message, not its type")
    func distinct() throws {
        let memo = RenderedJSONMemo()
        let names = ["ana", "ben", "cat", "ana", "cat", "ben"]
        for name in names {
            #expect(try memo.rendered(answer(name)).json == (try printed(answer(name))), "\(name)")
        }
        // A field that differs only in a number is another answer too.
        var cheaper = answer("ana")
        cheaper.offers[0].price.minorUnits -= 1
        #expect(try memo.rendered(cheaper).json == (try printed(cheaper)))
        #expect(memo.count == 4)
    }

    @Test("two equal messages share one body, a map filled in another order included; two messages of two types never do")
    func keyedByEquality() throws {
        let memo = RenderedJSONMemo()
        let pairs = (0..<40).map { ("C\($0)", "1.\($0)") }
        var forwards = ExchangeRatesResponse()
        for (currency, rate) in pairs { forwards.ratesPerEuro[currency] = rate }
        var backwards = ExchangeRatesResponse()
        for (currency, rate) in pairs.reversed() { backwards.ratesPerEuro[currency] = rate }
        let first = try memo.rendered(forwards)
        #expect(try memo.rendered(backwards).json == first.json && memo.count == 1)
        // Two empty messages of two types: each prints its own fields (at their defaults).
        let rates = try memo.rendered(ExchangeRatesResponse())
        let offers = try memo.rendered(SearchFlightsResponse())
        #expect(rates.json == (try ProtoJSONWithDefaults.fareLens.utf8(of: ExchangeRatesResponse())))
        #expect(offers.json == (try printed(SearchFlightsResponse())))
        #expect(rates.json != offers.json && memo.count == 3)
    }

    @Test("the memo stays within its byte budget however many answers pass, those found again included, and still prints each one right")
    func bounded() throws {
        let budget = 16 << 10
        let memo = RenderedJSONMemo(byteBudget: budget)
        var seen: [String] = []
        // Each round: eight new answers, then every answer seen before again (those kept are found, and move to the current generation).
        for round in 0..<20 {
            let fresh = (0..<8).map { "u-\(round)-\(String($0).leftPadded(2))" }
            for name in fresh + seen {
                #expect(try memo.rendered(answer(name, offers: 1)).json == (try printed(answer(name, offers: 1))))
                #expect(memo.keptBytes <= budget, "round \(round), \(name): \(memo.keptBytes) bytes")
            }
            seen += fresh
        }
        #expect(memo.count > 0)
    }

    @Test("a body longer than the largest kept is printed every time and not kept; one as long is kept")
    func large() throws {
        let big = answer("big", offers: 20)
        let length = try printed(big).count
        let memo = RenderedJSONMemo(largestKept: length - 1)
        #expect(try memo.rendered(big).json == (try printed(big)))
        #expect(try memo.rendered(big).json == (try printed(big)))
        #expect(memo.count == 0)
        let roomy = RenderedJSONMemo(largestKept: length)
        _ = try roomy.rendered(big)
        #expect(roomy.count == 1 && roomy.keptBytes == 2 * length)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
