import Testing
@testable import FareLensGateway

@Suite("A null in a request's body is found and named")
struct ProtoJSONNullTests {
    private func firstNull(_ text: String) -> String? { ProtoJSON.firstNull(in: Array(text.utf8)) }

    @Test("a null literal is named by its path, at any depth; the body itself too")
    func found() {
        #expect(firstNull(#"{"quiet_hours":{"start":null}}"#) == "quiet_hours.start")
        #expect(firstNull(#"{"origin":"JFK","airports":["SFO",null]}"#) == "airports[1]")
        #expect(firstNull("null") == "body")
        #expect(firstNull(#"{"a":1,"z":null}"#) == "z")
    }

    @Test("a body without a null literal has none, whether or not its text holds the letters")
    func absent() {
        #expect(firstNull(#"{"origin":"JFK","destination":"LAX","adults":1}"#) == nil)
        #expect(firstNull(#"{"title":"null and void"}"#) == nil)
        #expect(firstNull(#"{"title":"nul"}"#) == nil)
        #expect(firstNull("") == nil && firstNull("nul") == nil)
    }

    @Test("the four bytes are found wherever they are, the body's last four included")
    func mentions() {
        #expect(ProtoJSON.mentionsNull(Array("null".utf8)))
        #expect(ProtoJSON.mentionsNull(Array(#"{"a":null"#.utf8)))
        #expect(!ProtoJSON.mentionsNull(Array(#"{"a":nul"#.utf8)))
        #expect(!ProtoJSON.mentionsNull(Array(#"{"nu":"ll"}"#.utf8)))
    }
}
