import Testing

/// Every end-to-end test runs the real binary against local origins; serialized so
/// timing-sensitive cases (stalls, Retry-After, kill -9) are not starved on 2 cores.
/// `Scripts/test` runs three test processes at once, each with its share of these
/// suites, so at most three end-to-end tests run at a time.
@Suite(.serialized) enum EndToEnd {}
