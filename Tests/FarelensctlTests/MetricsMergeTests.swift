import Testing
@testable import farelensctl

/// `farelensctl metrics`: several nodes' texts as one exposition (issue #63, item 6).
@Suite("farelensctl metrics merges the nodes' texts")
struct MetricsMergeTests {
    static let hub = """
        # HELP farelens_b_total B things.
        # TYPE farelens_b_total counter
        farelens_b_total{peer="x"} 1
        # HELP farelens_a_seconds A time.
        # TYPE farelens_a_seconds histogram
        farelens_a_seconds_bucket{le="0.5"} 1
        farelens_a_seconds_bucket{le="+Inf"} 1
        farelens_a_seconds_sum 0.25
        farelens_a_seconds_count 1

        """
    static let spoke = """
        # HELP farelens_b_total B things.
        # TYPE farelens_b_total counter
        farelens_b_total{peer="hub"} 2
        # HELP farelens_c Plain.
        # TYPE farelens_c gauge
        farelens_c 3.0

        """

    @Test("one # HELP and # TYPE a name, names in order, each node's samples with its node label first")
    func merged() {
        var merge = MetricsMerge()
        merge.add(Self.hub, node: "hub")
        merge.add(Self.spoke, node: "spoke")
        #expect(merge.conflicts.isEmpty)
        #expect(merge.text == """
            # HELP farelens_a_seconds A time.
            # TYPE farelens_a_seconds histogram
            farelens_a_seconds_bucket{node="hub",le="0.5"} 1
            farelens_a_seconds_bucket{node="hub",le="+Inf"} 1
            farelens_a_seconds_sum{node="hub"} 0.25
            farelens_a_seconds_count{node="hub"} 1
            # HELP farelens_b_total B things.
            # TYPE farelens_b_total counter
            farelens_b_total{node="hub",peer="x"} 1
            farelens_b_total{node="spoke",peer="hub"} 2
            # HELP farelens_c Plain.
            # TYPE farelens_c gauge
            farelens_c{node="spoke"} 3.0

            """)
    }

    @Test("a node whose type for a name disagrees has that name's samples left out, and says so")
    func typeConflict() {
        var merge = MetricsMerge()
        merge.add("# TYPE farelens_c gauge\nfarelens_c 1\n", node: "hub")
        merge.add("# TYPE farelens_c counter\nfarelens_c 2\n# TYPE farelens_d gauge\nfarelens_d 4\n", node: "old")
        #expect(merge.text == "# TYPE farelens_c gauge\nfarelens_c{node=\"hub\"} 1\n# TYPE farelens_d gauge\nfarelens_d{node=\"old\"} 4\n")
        #expect(merge.conflicts == ["farelens_c is a gauge on hub but a counter on old; old's samples are left out"])
    }

    @Test("a label value with a quote or backslash stays one value; the node's name is escaped too")
    func escaping() {
        #expect(MetricsMerge.labelled(#"m{a="x \"y\" {z}"} 1"#, with: #"node="n\\1""#) == #"m{node="n\\1",a="x \"y\" {z}"} 1"#)
        #expect(MetricsMerge.escapedLabelValue(#"a"b\c"#) == #"a\"b\\c"#)
        #expect(MetricsMerge.labelled("m{} 1", with: #"node="n""#) == #"m{node="n"} 1"#)
    }
}
