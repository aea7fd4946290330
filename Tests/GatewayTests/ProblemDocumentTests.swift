import Foundation
import HTTPTypes
import Testing
@testable import FareLensGateway

@Suite("Problem documents")
struct ProblemDocumentTests {
    @Test("a problem's document holds its code, detail, field, instance, title, type and numeric status, keys in order, text escaped")
    func document() throws {
        let detail = "a \"quoted\" name, a back\\slash, a tab\t, a new\nline, a bell \u{07}, é and ✈, and a/slash"
        let problem = Problem(.unprocessableContent, code: "unknown-airport", detail, field: "origin")
        let text = problem.json(instance: "/v1/search")
        #expect(text.hasPrefix("{\"code\":\"unknown-airport\",\"detail\":"))
        #expect(text.hasSuffix(",\"title\":\"Unprocessable Content\",\"type\":\"https://farelens.app/problems/unknown-airport\",\"status\":422}"))
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(decoded["detail"] as? String == detail)
        #expect(decoded["field"] as? String == "origin" && decoded["instance"] as? String == "/v1/search")
        #expect(decoded["status"] as? Int == 422 && decoded.count == 7)
    }

    @Test("a problem without a field or instance leaves both keys out")
    func without() throws {
        let text = Problem.notFound("no such watchlist").json
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(decoded.keys) == ["code", "detail", "title", "type", "status"])
        #expect(decoded["code"] as? String == "not-found" && decoded["status"] as? Int == 404)
    }
}
