import ArgumentParser
import MediaCacheKit

/// `-H 'Name: value'` as `prefetch`, `resume`, `serve` and `url` take it.
enum HeaderArgument {
    /// A header without a name before its colon, or with a space in the name, is refused
    /// without echoing its value (it may be a token); so is one with CR or LF, which would
    /// start another header.
    static func validate(_ headers: [String]) throws {
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex,
                !header[..<colon].contains(" ")
            else { throw ValidationError("-H expects 'Name: value', got '\(HeaderRedaction.preview(header))'") }
            if let problem = HeaderValueCheck.problem(header, name: "-H") { throw ValidationError(problem) }
            if let problem = HeaderValueCheck.reservedProblem(header, given: "-H") { throw ValidationError(problem) }
        }
    }
}
