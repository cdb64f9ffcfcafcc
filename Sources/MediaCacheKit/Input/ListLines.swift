/// One line of a list as the parser takes it: without its line break (and, on the first
/// line, without a byte order mark).
struct ListLine {
    /// The line; for a line that is not UTF-8, what of it could be read (its text before a
    /// comment, else its indentation); for an over-long one, its indentation.
    var text: Substring
    /// Its length in bytes, as it stands in the list.
    var length: Int
    var isUTF8: Bool
    /// What stands before its comment is longer than the parser takes (a comment may be
    /// as long as it likes).
    var isOverlong = false

    /// `bytes` as a line: UTF-8 text, else what of it can be read. A comment may hold any
    /// bytes (the parser drops it); a line that is not UTF-8 keeps only its indentation
    /// (the parser reports it), so the other lines stand.
    init(decoding bytes: ArraySlice<UInt8>) {
        length = bytes.count
        isOverlong = Self.isOverlong(bytes)
        if let text = String(validating: bytes, as: UTF8.self) {
            self.text = text[...]
            isUTF8 = true
        } else if let kept = String(validating: bytes[..<ListParser.commentStart(bytes)], as: UTF8.self) {
            text = kept[...]
            isUTF8 = true
        } else {
            text = String(decoding: Self.indentation(of: bytes), as: UTF8.self)[...]
            isUTF8 = false
        }
    }

    init(text: Substring, length: Int, isUTF8: Bool = true, isOverlong: Bool = false) {
        self.text = text
        self.length = length
        self.isUTF8 = isUTF8
        self.isOverlong = isOverlong
    }

    /// Whether what stands before the comment of the line `bytes` is over the limit.
    static func isOverlong(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count > ListParser.maxLineLength
            && ListParser.commentStart(bytes) - bytes.startIndex > ListParser.maxLineLength
    }

    static func indentation(of bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }
}

/// The lines of one list, each once, in order.
protocol ListLines {
    /// The next line; nil after the last (or when the rest cannot be read: `failure`).
    mutating func next() -> ListLine?
    /// Why the list stopped before its end; nil when it was read whole.
    var failure: String? { get }
    /// Whether a stream's reading was stopped (Ctrl-C) before its end.
    var wasStopped: Bool { get }
    /// Whether no line is at hand and none arrives within a second: a stream whose
    /// writer is silent after a whole line. A file or a text never is.
    mutating func isQuiet() -> Bool
}

/// The lines of a list held in memory (the URL arguments, a device read whole).
struct TextListLines: ListLines {
    private let text: String
    private let undecodableLines: Set<Int>
    private var position: String.Index?
    private var number = 0
    var failure: String? { nil }
    var wasStopped: Bool { false }
    func isQuiet() -> Bool { false }

    init(_ text: String, undecodableLines: Set<Int>) {
        self.text = text
        self.undecodableLines = undecodableLines
        position = text.startIndex
    }

    mutating func next() -> ListLine? {
        guard let start = position else { return nil }
        number += 1
        let rest = text.utf8[start...]
        var line: Substring
        if let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            line = text[start..<newline]
            position = text.utf8.index(after: newline)
        } else {
            line = text[start...]
            position = nil
        }
        if line.utf8.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if number == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
        let length = line.utf8.count
        let overlong = length > ListParser.maxLineLength && ListLine.isOverlong(Array(line.utf8)[...])
        return ListLine(text: line, length: length, isUTF8: !undecodableLines.contains(number), isOverlong: overlong)
    }
}
