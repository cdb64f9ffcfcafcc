/// A name (an `out=` name, as `ls` shows it) that several cached objects share.
public struct AmbiguousName: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    /// Some of the objects that have it (at most six).
    public let urls: [String]

    public var description: String {
        let shown = urls.prefix(5).map { Printable.url($0, limit: 200) }.joined(separator: ", ")
        let more = urls.count > 5 ? ", …" : ""
        return "'\(Printable.name(name))' is the name of \(urls.count > 5 ? "more than 5" : "\(urls.count)") cached objects "
            + "(\(shown)\(more)); give the URL or cache key of the one you mean"
    }
}
