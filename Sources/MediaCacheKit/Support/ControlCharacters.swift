/// Whether text holds a control character (Unicode category Cc: U+0000–U+001F and
/// U+007F–U+009F), read from its UTF-8 bytes. Asking each scalar for its Unicode
/// properties cost a 1,000-segment playlist a tenth of a second on the loop thread.
public enum ControlCharacters {
    public static func occur(in text: some StringProtocol, allowingTab: Bool = false) -> Bool {
        var afterC2 = false
        for byte in text.utf8 {
            // U+0080–U+009F are 0xC2 0x80–0xC2 0x9F; 0xC2 is never a continuation byte.
            if afterC2 && byte <= 0x9F { return true }
            afterC2 = byte == 0xC2
            if byte == 0x7F || (byte < 0x20 && !(allowingTab && byte == 0x09)) { return true }
        }
        return false
    }
}
