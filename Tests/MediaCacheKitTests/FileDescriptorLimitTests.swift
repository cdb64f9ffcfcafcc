import Testing
@testable import MediaCacheKit

@Suite struct FileDescriptorLimitTests {
    /// The test process's hard limit is at least its soft limit: raising never lowers it.
    @Test func raisingKeepsOrRaisesTheSoftLimit() {
        let before = FileDescriptorLimit.current
        let after = FileDescriptorLimit.raiseSoftLimit()
        #expect(after >= before)
        #expect(after == FileDescriptorLimit.current)
        #expect(after >= FileDescriptorLimit.minimumForARun)
    }
}
