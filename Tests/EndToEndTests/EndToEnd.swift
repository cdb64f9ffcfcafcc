import Testing

/// Every end-to-end test runs the real binary against local origins; serialized so
/// timing-sensitive cases (stalls, Retry-After, kill -9) are not starved on 2 cores.
@Suite(.serialized) enum EndToEnd {}
