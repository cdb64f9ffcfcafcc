/// A tag line (`#EXT-X-KEY:METHOD=AES-128,...`) with the playlist and line it was read
/// from: the one place where a `PlaylistSyntaxError` becomes a `PresentationError` that
/// names the URL, the line and the tag.
struct PlaylistTag {
    /// Without the `#`: `EXT-X-KEY`.
    let name: Substring
    /// Everything after the first `:`, empty when there is none.
    let value: Substring
    let line: Int
    let url: String

    init(_ line: PlaylistText.Line, url: String) {
        name = line.tagName
        let rest = line.text.dropFirst(1 + name.count)
        value = rest.first == ":" ? rest.dropFirst() : ""
        self.line = line.number
        self.url = url
    }

    func malformed(_ reason: String) -> PresentationError {
        .malformed(url: url, line: line, tag: String(name), reason: reason)
    }

    /// The result of `read`, its error reported against this tag.
    func reading<T>(_ read: () throws(PlaylistSyntaxError) -> T) throws(PresentationError) -> T {
        do {
            return try read()
        } catch {
            throw malformed(error.reason)
        }
    }

    /// The attribute list of the tag, `{$name}` references in quoted values replaced.
    func attributes(substituting variables: inout HLSVariables) throws(PresentationError) -> AttributeList {
        try reading { () throws(PlaylistSyntaxError) in
            try AttributeList(parsing: value).mappingQuotedValues { text throws(PlaylistSyntaxError) in
                try variables.substitute(text)
            }
        }
    }

    /// The attribute list as written (`EXT-X-DEFINE`'s own values are not substituted).
    func attributes() throws(PresentationError) -> AttributeList {
        try reading { () throws(PlaylistSyntaxError) in try AttributeList(parsing: value) }
    }
}
