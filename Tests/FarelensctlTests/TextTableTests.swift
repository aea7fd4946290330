import Testing
@testable import farelensctl

/// Tables show what nodes stored; stored text must not drive the terminal.
@Suite("farelensctl tables")
struct TextTableTests {
    @Test("control characters in a cell are shown as \\u{XX}, so an email stored with an escape sequence cannot recolour the terminal; other text, accents included, is unchanged")
    func controlCharacters() {
        var table = TextTable("ID", "EMAIL")
        table.add("u-1", "a\u{1B}[31mred@example.com")
        table.add("u-2", "zoë@example.com")
        #expect(table.rendered == "ID   EMAIL\nu-1  a\\u{1B}[31mred@example.com\nu-2  zoë@example.com")
        #expect(TextTable.visible("tab\there\u{7F}\u{85}") == "tab\\u{9}here\\u{7F}\\u{85}")
        #expect(!table.rendered.unicodeScalars.contains { $0.value == 0x1B })
    }
}
