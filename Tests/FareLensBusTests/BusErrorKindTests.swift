import FareLensBus
import Testing

@Suite("BusError kinds")
struct BusErrorKindTests {
    @Test("a kind is transient when the same request may be answered later, and every kind says which it is", arguments: [
        ("timeout", true), ("service-unavailable", true), ("overloaded", true), ("cancelled", true),
        ("remote", false), ("bad-message", false), ("forbidden", false),
    ])
    func transience(name: String, transient: Bool) throws {
        let kind = try #require(BusError.Kind(name: name))
        #expect(kind.isTransient == transient)
    }

    @Test("the errors a caller meets carry their kind's transience")
    func errorsCarryIt() {
        #expect(BusError.serviceUnavailable("subscription").kind.isTransient)
        #expect(BusError.deadlineExpired("GetUsers").kind.isTransient)
        #expect(!BusError.remote(code: "invalid-field", message: "airport: 'XX' is not a code").kind.isTransient)
        #expect(!BusError.forbidden("admin").kind.isTransient)
    }
}
