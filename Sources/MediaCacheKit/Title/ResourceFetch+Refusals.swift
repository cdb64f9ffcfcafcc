/// Answers a resource's fetch refuses whatever asking again would bring: ranges past
/// the end of the file they point into, and a body of no stated length that runs past
/// what it may be.
extension ResourceFetch {
    /// The playlist's byte ranges of a file reach past the end the origin gives it: those
    /// segments would be holes in the title, never filled by asking again.
    func rangesPastTheEnd(_ head: HTTPResponseHead) -> JobFailure? {
        guard let range = resource.range else { return nil }
        let total = head.status == 206 ? head.contentRange?.total : head.contentLength
        guard let total, range.end > total else { return nil }
        return JobFailure(
            .badResponse,
            "\(resource.label) (\(Printable.url(url))) holds \(total) bytes, but the playlist's byte ranges of it reach "
                + "byte \(range.end): the playlist and its file disagree at the origin; the title cannot be whole")
    }

    /// A 416 to the byte ranges of a file: they start past its end.
    func rangesRefused(_ head: HTTPResponseHead) -> JobFailure {
        let length = ResponseCheck.unsatisfiedLength(head).map { " (it holds \($0) bytes)" } ?? ""
        return JobFailure(
            .badResponse,
            "the playlist's byte ranges of \(resource.label) (\(Printable.url(url))) lie past the end of its file"
                + "\(length): the origin answered HTTP 416; the playlist and its file disagree at the origin",
            cause: .status(416))
    }

    /// Why a response of no stated length cannot go on to `bytes`; nil: it can. What it
    /// sent is then dropped, as a file's is.
    func unannouncedRefusal(upTo bytes: Int64) -> String? {
        if resource.kind == .key {
            guard bytes > HLSKey.aes128KeyLength else { return nil }
            return PresentationError.badKeyLength(keyURI: url, bytes: nil).message
        }
        guard bytes > maxUnannouncedBytes else { return nil }
        return PrefetchOptions.beyondStreamLimit("\(resource.label) (\(Printable.url(url)))", limit: maxUnannouncedBytes)
    }
}
