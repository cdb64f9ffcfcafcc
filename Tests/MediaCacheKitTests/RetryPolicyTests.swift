import Testing
@testable import MediaCacheKit

@Suite("RetryPolicy")
struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelay: 1, maxDelay: 30, maxRetryAfter: 60)

    @Test(arguments: 1...5)
    func delayIsExponentialWithin25PercentJitter(attempt: Int) {
        let nominal = Double(1 << (attempt - 1))
        var samples: Set<Double> = []
        for _ in 0..<200 {
            let delay = policy.delay(attempt: attempt, retryAfter: nil)
            #expect(delay >= nominal * 0.75 && delay <= nominal * 1.25, "attempt \(attempt): \(delay)")
            samples.insert(delay)
        }
        #expect(samples.count > 1, "no jitter at attempt \(attempt)")
    }

    @Test func laterAttemptsWaitLonger() {
        // Jitter bands of attempts n and n+2 do not overlap (0.75·4 > 1.25·1).
        for _ in 0..<100 {
            #expect(policy.delay(attempt: 3, retryAfter: nil) > policy.delay(attempt: 1, retryAfter: nil))
            #expect(policy.delay(attempt: 5, retryAfter: nil) > policy.delay(attempt: 3, retryAfter: nil))
        }
    }

    @Test(arguments: [6, 10, 17, 64, 1000])
    func delayIsCappedByMaxDelay(attempt: Int) {
        for _ in 0..<50 {
            let delay = policy.delay(attempt: attempt, retryAfter: nil)
            #expect(delay <= 30)
            if attempt >= 7 { #expect(delay == 30) }  // 0.75·64 > 30
        }
    }

    @Test func retryAfterIsUsedAsIs() {
        #expect(policy.delay(attempt: 1, retryAfter: 5) == 5)
        #expect(policy.delay(attempt: 4, retryAfter: 0) == 0)
        #expect(policy.delay(attempt: 1, retryAfter: 45) == 45)  // above maxDelay, below maxRetryAfter
    }

    @Test func retryAfterIsCappedByMaxRetryAfter() {
        #expect(policy.delay(attempt: 1, retryAfter: 3600) == 60)
    }

    @Test(arguments: [408, 425, 429, 500, 502, 503, 504])
    func transientStatuses(status: Int) {
        #expect(RetryPolicy.isTransient(status: status))
    }

    @Test(arguments: [200, 206, 301, 400, 401, 403, 404, 410, 416, 501])
    func permanentStatuses(status: Int) {
        #expect(!RetryPolicy.isTransient(status: status))
    }
}
