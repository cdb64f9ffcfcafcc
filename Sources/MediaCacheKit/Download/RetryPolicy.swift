/// Exponential backoff with jitter; the attempt count restarts whenever bytes arrive.
struct RetryPolicy: Sendable {
    var baseDelay: Double
    var maxDelay: Double
    var maxRetryAfter: Double

    /// Delay before retry number `attempt` (1-based): base·2^(n-1), ±25 %, capped.
    func delay(attempt: Int, retryAfter: Double?) -> Double {
        if let retryAfter { return min(retryAfter, maxRetryAfter) }
        let exponential = baseDelay * Double(1 << min(attempt - 1, 16))
        let jitter = Double.random(in: 0.75...1.25)
        return min(maxDelay, exponential * jitter)
    }

    /// Statuses worth another try: the origin is busy or briefly broken.
    static func isTransient(status: Int) -> Bool {
        status == 408 || status == 425 || status == 429 || (500...599).contains(status) && status != 501
    }
}
