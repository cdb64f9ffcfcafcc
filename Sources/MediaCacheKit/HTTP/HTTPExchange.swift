/// One request made on the calling thread, without the transfer loop, its response kept
/// in memory up to a bound: the S3 tier's requests, whose answers are small (XML,
/// records) or empty. Blocks until the response ends; any thread may call it.
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

    private init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Makes `request` and returns its final response, or why none arrived whole. A
    /// success body over `maxBodyBytes` ends the transfer with an error saying so.
    static func perform(_ request: HTTPRequest, userAgent: String, maxBodyBytes: Int) -> Result<Response, TransferError> {
        let exchange = HTTPExchange(maxBodyBytes: maxBodyBytes)
        let transfer = HTTPTransfer(request: request, userAgent: userAgent, delegate: exchange)
        transfer.complete(code: transfer.easy.perform())
        if exchange.bodyTooLarge {
            return .failure(TransferError(kind: .aborted, message: "the response is larger than \(maxBodyBytes) bytes"))
        }
        if let error = exchange.outcome { return .failure(error) }
        guard let head = exchange.head else {
            return .failure(TransferError(kind: .network, message: "the server closed the connection without a response"))
        }
        return .success(Response(head: head, body: exchange.body))
    }

    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) -> Bool {
        self.head = head
        return true
    }

    func transfer(_ transfer: HTTPTransfer, didReceive chunk: BodyChunk) -> Int {
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
    }
}
