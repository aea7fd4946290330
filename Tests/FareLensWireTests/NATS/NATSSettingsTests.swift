import FareLensBus
@testable import FareLensNATS
import Testing

/// The NATS transport's rules that need no server: names, subjects, the registry.
@Suite("NATS settings, subjects and registry")
struct NATSSettingsTests {
    @Test("a namespace is one subject token and a stream name", arguments: [
        ("farelens", true), ("prod-eu_1", true), ("", false), ("a.b", false), ("a*", false), ("a>", false), ("a b", false),
        ("ü", false), (String(repeating: "n", count: 32), true), (String(repeating: "n", count: 33), false),
    ])
    func namespaces(name: String, valid: Bool) {
        #expect(NATSSettings.isValidNamespace(name) == valid)
    }

    @Test("server URLs: nats:// or tls:// with a host and a numeric port", arguments: [
        ("nats://127.0.0.1:4222", true), ("tls://nats.example.com:4443", true), ("nats://u:p@host:4222", true), ("host:4222", true),
        ("nats://host", true), ("nats://", false), ("nats://host:port", false), ("nats://host:4222/path", false), ("nats://ho st:1", false),
    ])
    func urls(url: String, valid: Bool) {
        #expect(NATSSettings.isValidURL(url) == valid)
    }

    @Test("the settings' log line never shows the password")
    func passwordHidden() {
        var settings = NATSSettings(urls: ["nats://a:4222"], namespace: "ns")
        settings.user = "node"
        settings.password = "hunter2-secret"
        #expect(!settings.description.contains("hunter2"))
        #expect(settings.description.contains("password=<hidden>"))
    }

    @Test("subjects: requests, replies, events, durable events, heartbeats (docs/bus.md's table)")
    func subjects() {
        let subjects = NATSSubjects(namespace: "ns")
        #expect(subjects.request("search") == "ns.req.search")
        #expect(subjects.replies(to: "node.1") == "ns.reply.node_1.*")
        #expect(subjects.reply(to: "node.1", id: 7) == "ns.reply.node_1.7")
        #expect(subjects.event("search.fare-observed") == "ns.evt.search.fare-observed")
        #expect(subjects.event("*") == "ns.evt.>")
        #expect(subjects.durableEvent("alerts.alert-decided") == "ns.dur.alerts.alert-decided")
        #expect(subjects.durableEvents == "ns.dur.>")
        #expect(subjects.stream == "ns_durable")
        #expect(subjects.heartbeat(of: "spoke-search") == "ns.node.spoke-search")
        #expect(subjects.consumer(of: "a.b c*d>") == "a_b_c_d_")
    }

    @Test("the registry: a node hosts what its last heartbeat said, until it leaves or is silent for the timeout")
    func registry() {
        var registry = NodeRegistry(timeout: .seconds(3))
        let start = BusInstant(nanoseconds: 1_000_000_000_000)
        let firstA = registry.heard("a", services: ["search"], topics: [], at: start)
        let firstB = registry.heard("b", services: ["search", "alerts"], topics: ["*"], at: start)
        let againA = registry.heard("a", services: ["search"], topics: [], at: start.advanced(by: .seconds(2)))
        #expect(firstA && firstB)
        #expect(!againA, "the same services again is not news")
        #expect(registry.hosting("search") == ["a", "b"])
        #expect(registry.wants("search.fare-observed"), "b wants every topic")
        _ = registry.heard("b", services: ["search", "alerts"], topics: ["alerts.alert-decided"], at: start)
        #expect(registry.wants("alerts.alert-decided"))
        #expect(!registry.wants("search.fare-observed"), "nobody wants it any more")
        #expect(registry.hosts("alerts"))
        let atTimeout = registry.expire(at: start.advanced(by: .seconds(3)))
        #expect(atTimeout.isEmpty, "exactly the timeout is not past it")
        let pastTimeout = registry.expire(at: start.advanced(by: .milliseconds(3001)))
        #expect(pastTimeout == ["b"])
        #expect(!registry.hosts("alerts"))
        let leftOnce = registry.left("a")
        let leftTwice = registry.left("a")
        #expect(leftOnce && !leftTwice)
        #expect(!registry.hosts("search"))
    }

    @Test("the server's permissions violations: publish or subscription, and the subject, in its case; anything else is not one")
    func permissionViolations() {
        #expect(PermissionViolation("nats: Permissions Violation for Publish to \"farelens.req.admin.Echo\"") == PermissionViolation(subject: "farelens.req.admin.Echo", isPublish: true))
        #expect(PermissionViolation("'Permissions Violation for Subscription to \"farelens.req.admin.edge\" using queue \"admin.edge\"'") == PermissionViolation(subject: "farelens.req.admin.edge", isPublish: false))
        #expect(PermissionViolation("nats: Permissions Violation for Publish to") == nil)
        #expect(PermissionViolation("Permissions Violation for Publish to \"\"") == nil)
        #expect(PermissionViolation("Authorization Violation") == nil)
        #expect(PermissionViolation("Permissions Violation for Teleport to \"x\"") == nil)
        #expect(NATSSubjects(namespace: "farelens").address(ofRequestSubject: "farelens.req.admin.node.core") == "admin.node.core")
        #expect(NATSSubjects(namespace: "farelens").address(ofRequestSubject: "farelens.evt.price") == nil)
        #expect(NATSSubjects(namespace: "farelens").address(ofRequestSubject: "farelens.req.") == nil)
    }

    @Test("a consumer's lag is what it has still to settle; events expired for it are those between its acknowledged mark and the stream's oldest kept one")
    func consumerPositions() {
        let position = ConsumerPosition(acknowledgedThrough: 3, undelivered: 5, unacknowledged: 2)
        #expect(position.lag == 7)
        #expect(position.expired(firstKept: 4) == 0)   // nothing removed past its mark
        #expect(position.expired(firstKept: 2) == 0)   // the stream keeps older ones too
        #expect(position.expired(firstKept: 9) == 5)   // 4...8 removed
        #expect(ConsumerPosition(acknowledgedThrough: 0, undelivered: 0, unacknowledged: -1).lag == 0)
    }
}
