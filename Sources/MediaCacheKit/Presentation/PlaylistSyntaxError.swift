/// Why a piece of a playlist line cannot be read: an attribute list, a value, a byte
/// range, a URI or a variable reference. The playlist readers add the URL, line and tag
/// (`PresentationError.malformed`), which only they know.
public struct PlaylistSyntaxError: Error, Equatable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }

    /// `text` quoted for a reason: short, control characters replaced (it is the
    /// playlist's own text, which may be hostile).
    static func quote(_ text: some StringProtocol) -> String {
        "'" + Printable.name(String(text), limit: 60) + "'"
    }
}
