/// One request whose response is kept in memory up to a bound: the S3 tier's requests,
/// whose answers are small (XML, records), empty, or a window of a title's pack.
/// `perform` blocks the calling thread (the tier's own commands); `start` runs it on the
/// transfer loop with the downloads, sharing their connections and rate limits (a
/// download's tier lookup, a title's pull).
final class HTTPExchange: HTTPTransferDelegate {
    struct Response: Sendable {
        var head: HTTPResponseHead
        var body: [UInt8]
    }

    private let maxBodyBytes: Int
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var outcome: TransferError?
    private var bodyTooLarge = false
    /// For `start`: called once on the loop thread; the exchange keeps itself until then
    /// (a transfer holds its delegate weakly).
    private var completion: ((Result<Response, TransferError>) -> Void)?
    private var keptAlive: HTTPExchange?
    /// Asked at every chunk: the transfer ends once it says so.
    private var isCancelled: (@Sendable () -> Bool)?
    private var cancelled = false

    private init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Makes `request` and returns its final response, or why none arrived whole. A
    /// success body over `maxBodyBytes` ends the transfer with an error saying so.
    static func perform(_ request: HTTPRequest, userAgent: String, maxBodyBytes: Int) -> Result<Response, TransferError> {
        let exchange = HTTPExchange(maxBodyBytes: maxBodyBytes)
        let transfer = HTTPTransfer(request: request, userAgent: userAgent, delegate: exchange)
        transfer.complete(code: transfer.easy.perform())
        return exchange.result
    }

    /// Makes `request` on `loop` (call on its thread), held to `rateLimits` if any, and
    /// ended at its next bytes once `isCancelled`; `completion` gets what `perform`
    /// returns, on the loop thread. `priority` places it among its host's transfers: by
    /// default first (short, and a download waits on it, never behind the ranges of the
    /// downloads it would start); a title's pack reads take their download's.
    static func start(
        _ request: HTTPRequest, userAgent: String, maxBodyBytes: Int, on loop: TransferLoop,
        rateLimits: RateLimits? = nil, priority: Int = Int.max, isCancelled: (@Sendable () -> Bool)? = nil,
        completion: @escaping (Result<Response, TransferError>) -> Void
    ) {
        loop.preconditionOnLoop()
        let exchange = HTTPExchange(maxBodyBytes: maxBodyBytes)
        exchange.completion = completion
        exchange.keptAlive = exchange
        exchange.isCancelled = isCancelled
        let transfer = HTTPTransfer(request: request, userAgent: userAgent, delegate: exchange, rateLimits: rateLimits)
        transfer.priority = priority
        loop.start(transfer)
    }

    /// Takes over `transfer` on `loop`, whose head has arrived and whose body is still to
    /// come, from the delegate it was made for; the caller hands it the chunk in hand
    /// (`transfer(_:didReceive:)`). `completion` gets what `start` would, on the loop thread.
    static func adopt(
        _ transfer: HTTPTransfer, maxBodyBytes: Int, on loop: TransferLoop,
        completion: @escaping (Result<Response, TransferError>) -> Void
    ) -> HTTPExchange {
        loop.preconditionOnLoop()
        let exchange = HTTPExchange(maxBodyBytes: maxBodyBytes)
        exchange.head = transfer.head
        exchange.completion = completion
        exchange.keptAlive = exchange
        transfer.delegate = exchange
        return exchange
    }

    private var result: Result<Response, TransferError> {
        if cancelled { return .failure(TransferError(kind: .aborted, message: "stopped")) }
        if bodyTooLarge {
            return .failure(TransferError(kind: .aborted, message: "the response is larger than \(maxBodyBytes) bytes"))
        }
        if let error = outcome { return .failure(error) }
        guard let head else {
            return .failure(TransferError(kind: .network, message: "the server closed the connection without a response"))
        }
        return .success(Response(head: head, body: body))
    }

    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool {
        self.head = head
        return true
    }

    func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int {
        if let isCancelled, isCancelled() {
            cancelled = true
            return 0
        }
        // An error answer is read whole (within reason) whatever the bound: it says why.
        let limit = (head.map { (200..<300).contains($0.status) } ?? true) ? maxBodyBytes : max(maxBodyBytes, 1 << 20)
        guard body.count + chunk.count <= limit else {
            bodyTooLarge = true
            return 0
        }
        body.append(contentsOf: chunk.bytes)
        return chunk.count
    }

    func transfer(_ transfer: HTTPTransfer, didCompleteWith error: TransferError?) {
        outcome = error
        if let completion {
            self.completion = nil
            completion(result)
            keptAlive = nil
        }
    }
}
