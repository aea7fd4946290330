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

    @Test("the memo stays within its byte budget however many answers pass, and still prints each one right")
    func bounded() throws {
        let memo = RenderedJSONMemo(byteBudget: 8 << 10)
        let oneCost = try (answer("u-000").serializedBytes() as [UInt8]).count + printed(answer("u-000")).count
        for index in 0..<500 {
            let name = "u-\(String(index).leftPadded(3))"
            #expect(try memo.rendered(answer(name)).json == (try printed(answer(name))))
        }
        // Two generations of at most half the budget each.
        #expect(memo.count > 0 && memo.count <= (8 << 10) / oneCost + 1)
    }

    @Test("an answer larger than the largest kept is printed every time and not kept")
    func large() throws {
        let memo = RenderedJSONMemo(largestKept: 64)
        let big = answer("big", offers: 20)
        #expect(try memo.rendered(big).json == (try printed(big)))
        #expect(memo.count == 0)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
