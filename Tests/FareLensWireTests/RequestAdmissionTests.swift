@testable import FareLensWire
import Testing

/// Which REQUESTs a bridge connection answers, as a state machine without
/// I/O: answers and task handles are plain values here.
@Suite struct RequestAdmissionTests {
    typealias Admission = RequestAdmission<String, Int>

    static func id(_ verdict: Admission.Verdict) -> UInt64? {
        if case .admitted(let id, _) = verdict { id } else { nil }
    }

    @Test("before an answer is installed a request stays queued; once installed, up to the limit are admitted with it and the next is overloaded, naming the limit")
    func admissionUpToTheLimit() {
        var admission = Admission()
        guard case .notInstalled = admission.admit() else { Issue.record("admitted before an answer"); return }
        admission.install(limit: 2, answer: "v1")
        guard case .admitted(let first, let answer) = admission.admit() else { Issue.record("not admitted"); return }
        #expect(answer == "v1")
        let second = Self.id(admission.admit())
        #expect(second != nil && second != first, "each admitted request has an id of its own")
        guard case .overloaded(let limit) = admission.admit() else { Issue.record("a third admitted past the limit"); return }
        #expect(limit == 2)
        #expect(admission.answering == 2)
        admission.finished(first)
        #expect(admission.answering == 1)
        #expect(Self.id(admission.admit()) != nil, "a finished request makes room")
    }

    @Test("a replaced answer is used for later requests and the limit changes with it; requests being answered are kept")
    func reinstall() {
        var admission = Admission()
        admission.install(limit: 1, answer: "v1")
        _ = admission.admit()
        admission.install(limit: 3, answer: "v2")
        guard case .admitted(_, let answer) = admission.admit() else { Issue.record("not admitted after the limit rose"); return }
        #expect(answer == "v2")
        #expect(admission.answering == 2)
    }

    @Test("the close returns the recorded tasks to cancel; a task recorded after the close is to be cancelled at once; a finished one is not kept; nothing is admitted after")
    func close() {
        var admission = Admission()
        admission.install(limit: 10, answer: "v1")
        let a = Self.id(admission.admit())!
        let b = Self.id(admission.admit())!
        let c = Self.id(admission.admit())!
        let result1 = admission.record(100, as: a)
        #expect(!result1)
        admission.finished(b)
        let result2 = admission.record(200, as: b)
        #expect(!result2, "finished before its task was recorded: not kept, not cancelled")
        let result3 = admission.close()
        #expect(result3.sorted() == [100], "a was recorded; b finished; c's task not recorded yet")
        let result4 = admission.record(300, as: c)
        #expect(result4, "recorded after the close: cancel it now")
        guard case .closed = admission.admit() else { Issue.record("admitted after the close"); return }
        admission.install(limit: 10, answer: "v2")
        guard case .closed = admission.admit() else { Issue.record("an install reopened a closed connection"); return }
        let result5 = admission.close()
        #expect(result5.isEmpty)
    }

    @Test("a connection closed before any answer was installed admits nothing")
    func closedBeforeInstall() {
        var admission = Admission()
        let result6 = admission.close()
        #expect(result6.isEmpty)
        admission.install(limit: 4, answer: "late")
        guard case .closed = admission.admit() else { Issue.record("admitted on a closed connection"); return }
    }
}
