/// Everything decided about a response before any byte is written.
struct ResponsePlan {
    enum Body {
        case none
        case text([UInt8])
        /// A slice of the resource's content (eligible for drop/stall/pacing faults).
        case content(ContentSource, Range<Int>)
    }

    var head: HTTPResponseHead
    var body: Body = .none
    /// For the log: the resolved requested range, whatever was actually served.
    var requestedRange: ClosedRange<Int>? = nil
    /// Faults of the resource when the body is its content; nil for error/scripted answers.
    var faults: Faults? = nil
    /// The content body goes out in chunked transfer coding.
    var chunked = false
    /// The body is sent whole, but the response is not properly ended (the connection
    /// closes short of its Content-Length, or before the last chunk).
    var endsBroken = false

    /// Chooses status, headers and body for `request` against the route snapshot
    /// (nil: no resource at that path).
    static func make(for request: HTTPRequestHead, route: RouteTable.Snapshot?) -> ResponsePlan {
        let sendsBody = request.method != "HEAD"
        guard request.method == "GET" || request.method == "HEAD" else {
            var plan = text(405, "method not allowed\n", sendsBody: sendsBody)
            plan.head.add("Allow", "GET, HEAD")
            return plan
        }
        guard let route else {
            return text(404, "not found\n", sendsBody: sendsBody)
        }
        if let denied = route.resource.access.denial(for: request, sendsBody: sendsBody) { return denied }
        if let scripted = route.scriptedStatus {
            var plan = text(scripted.status, scripted.body, sendsBody: sendsBody)
            if let retryAfter = scripted.retryAfter { plan.head.add("Retry-After", retryAfter) }
            if let type = scripted.contentType { plan.head.set("Content-Type", type) }
            return plan
        }
        let resource = route.resource
        if let location = resource.faults.redirectTo {
            var head = HTTPResponseHead(status: 302)
            head.add("Location", location)
            head.add("Content-Length", "0")
            return ResponsePlan(head: head)
        }
        guard let content = ContentSource(resource.body) else {
            return text(500, "resource file unreadable\n", sendsBody: sendsBody)
        }
        return contentPlan(request, resource, content, sendsBody: sendsBody)
    }

    /// A short text/plain answer (errors, scripted statuses).
    static func text(_ status: Int, _ text: String, sendsBody: Bool) -> ResponsePlan {
        let bytes = Array(text.utf8)
        var head = HTTPResponseHead(status: status)
        head.add("Content-Type", "text/plain; charset=utf-8")
        head.add("Content-Length", String(bytes.count))
        return ResponsePlan(head: head, body: sendsBody ? .text(bytes) : .none)
    }

    private static func contentPlan(
        _ request: HTTPRequestHead, _ resource: Resource, _ content: ContentSource, sendsBody: Bool
    ) -> ResponsePlan {
        let length = content.length
        let faults = resource.faults
        let resolution = ByteRange.parse(request.headers["range"]).flatMap { ByteRange.resolve($0, length: length) }
        var requestedRange: ClosedRange<Int>?
        if case .satisfiable(let range) = resolution { requestedRange = range }

        // Ranges are honoured unless the resource ignores them or If-Range says the client's copy is stale.
        let rangesOff = faults.ignoreRange || faults.chunked
        let honoursRange = !rangesOff && (faults.ignoreIfRange || ByteRange.ifRangeAllows(
            request.headers["if-range"], etag: resource.etag, lastModified: resource.lastModified))

        var slice = 0..<length
        var head = HTTPResponseHead(status: 200)
        if faults.alwaysUnsatisfiable {
            var plan = text(416, "range not satisfiable\n", sendsBody: sendsBody)
            plan.head.add("Content-Range", "bytes */\(length)")
            return plan
        }
        if let part = faults.partialBodyAs200, resolution != nil {
            slice = 0..<min(part, length)
            head.add("Content-Range", "bytes 0-\(slice.count - 1)/\(length)")
        } else if honoursRange, let resolution {
            switch resolution {
            case .satisfiable where faults.unsatisfiableRanges, .unsatisfiable:
                var plan = text(416, "range not satisfiable\n", sendsBody: sendsBody)
                plan.head.add("Content-Range", "bytes */\(length)")
                plan.head.addValidators(of: resource)
                return plan
            case .satisfiable(let range):
                let served = faults.wrongContentRange ? ByteRange.misplaced(range, length: length) : range
                slice = served.lowerBound..<(served.upperBound + 1)
                head = HTTPResponseHead(status: 206)
                let total = served.lowerBound > 0 ? faults.misstatedTotal ?? length : length
                head.add("Content-Range", "bytes \(served.lowerBound)-\(served.upperBound)/\(total)")
            }
        }
        head.add("Content-Type", resource.contentType)
        if let disposition = resource.contentDisposition { head.add("Content-Disposition", disposition) }
        if let encoding = faults.contentEncoding { head.add("Content-Encoding", encoding) }
        let chunked = faults.chunked || faults.missingLastChunk
        if chunked {
            head.add("Transfer-Encoding", "chunked")
            if let length = faults.contentLengthBesideChunked { head.add("Content-Length", String(length)) }
        } else {
            head.add("Content-Length", String(slice.count + (faults.overstatedLength ?? 0)))
            if let second = faults.secondContentLength { head.add("Content-Length", String(second)) }
        }
        if !rangesOff { head.add("Accept-Ranges", "bytes") }
        head.addValidators(of: resource)
        return ResponsePlan(
            head: head,
            body: !sendsBody ? .none
                : !slice.isEmpty ? .content(content, slice)
                : faults.chunked ? .text(Array("0\r\n\r\n".utf8)) : .none,
            requestedRange: requestedRange,
            faults: faults,
            chunked: chunked,
            endsBroken: faults.missingLastChunk || faults.overstatedLength != nil)
    }
}

extension HTTPResponseHead {
    mutating func addValidators(of resource: Resource) {
        if let etag = resource.etag { add("ETag", etag) }
        if let lastModified = resource.lastModified { add("Last-Modified", lastModified) }
    }
}

extension ByteRange {
    /// The wrongContentRange fault: same length where possible, but starting at 0 when
    /// the client asked for a later start, else 1000 bytes later than asked.
    static func misplaced(_ range: ClosedRange<Int>, length: Int) -> ClosedRange<Int> {
        let start = range.lowerBound > 0 ? 0 : min(range.lowerBound + 1000, length - 1)
        return start...min(start + range.count - 1, length - 1)
    }
}
